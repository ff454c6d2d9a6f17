//! comgr, ROCm's code object manager, parses our code object as the ROCm stack would: its
//! metadata reader must find every kernel (name, descriptor symbol, sizes) in the note, and its
//! symbol lookup must find `<k>` and `<k>.kd`. The declarations below are the few comgr functions
//! called, copied by hand from `amd_comgr.h` (Debian `libamd-comgr-dev` 5.2.3), enum values
//! checked against it.

mod common;

use ds_kernels::code_object;
use libloading::{Library, Symbol};
use std::ffi::{c_char, CString};

/// `amd_comgr_status_t`: AMD_COMGR_STATUS_SUCCESS = 0.
type Status = u32;
const SUCCESS: Status = 0;
/// `amd_comgr_data_kind_t`: AMD_COMGR_DATA_KIND_EXECUTABLE = 0x8.
const DATA_KIND_EXECUTABLE: u32 = 0x8;
/// `amd_comgr_metadata_kind_t`: STRING 1, MAP 2, LIST 3.
const METADATA_KIND_STRING: u32 = 1;
const METADATA_KIND_MAP: u32 = 2;
const METADATA_KIND_LIST: u32 = 3;

/// `amd_comgr_data_t`, `amd_comgr_metadata_node_t`, `amd_comgr_symbol_t`: one u64 handle each.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Handle(u64);

struct Comgr<'l> {
    create_data: Symbol<'l, unsafe extern "C" fn(u32, *mut Handle) -> Status>,
    set_data: Symbol<'l, unsafe extern "C" fn(Handle, usize, *const c_char) -> Status>,
    release_data: Symbol<'l, unsafe extern "C" fn(Handle) -> Status>,
    get_data_metadata: Symbol<'l, unsafe extern "C" fn(Handle, *mut Handle) -> Status>,
    destroy_metadata: Symbol<'l, unsafe extern "C" fn(Handle) -> Status>,
    get_metadata_kind: Symbol<'l, unsafe extern "C" fn(Handle, *mut u32) -> Status>,
    get_metadata_string:
        Symbol<'l, unsafe extern "C" fn(Handle, *mut usize, *mut c_char) -> Status>,
    metadata_lookup: Symbol<'l, unsafe extern "C" fn(Handle, *const c_char, *mut Handle) -> Status>,
    get_metadata_list_size: Symbol<'l, unsafe extern "C" fn(Handle, *mut usize) -> Status>,
    index_list_metadata: Symbol<'l, unsafe extern "C" fn(Handle, usize, *mut Handle) -> Status>,
    symbol_lookup: Symbol<'l, unsafe extern "C" fn(Handle, *const c_char, *mut Handle) -> Status>,
}

impl<'l> Comgr<'l> {
    fn load(lib: &'l Library) -> Comgr<'l> {
        // SAFETY: each symbol is declared with the signature amd_comgr.h gives it.
        unsafe {
            Comgr {
                create_data: lib.get(b"amd_comgr_create_data").unwrap(),
                set_data: lib.get(b"amd_comgr_set_data").unwrap(),
                release_data: lib.get(b"amd_comgr_release_data").unwrap(),
                get_data_metadata: lib.get(b"amd_comgr_get_data_metadata").unwrap(),
                destroy_metadata: lib.get(b"amd_comgr_destroy_metadata").unwrap(),
                get_metadata_kind: lib.get(b"amd_comgr_get_metadata_kind").unwrap(),
                get_metadata_string: lib.get(b"amd_comgr_get_metadata_string").unwrap(),
                metadata_lookup: lib.get(b"amd_comgr_metadata_lookup").unwrap(),
                get_metadata_list_size: lib.get(b"amd_comgr_get_metadata_list_size").unwrap(),
                index_list_metadata: lib.get(b"amd_comgr_index_list_metadata").unwrap(),
                symbol_lookup: lib.get(b"amd_comgr_symbol_lookup").unwrap(),
            }
        }
    }

    fn kind(&self, node: Handle) -> u32 {
        let mut kind = 0;
        // SAFETY: node is a live metadata handle; kind is a valid out pointer.
        assert_eq!(
            unsafe { (self.get_metadata_kind)(node, &mut kind) },
            SUCCESS
        );
        kind
    }

    fn lookup(&self, map: Handle, key: &str) -> Handle {
        let key = CString::new(key).unwrap();
        let mut value = Handle::default();
        // SAFETY: map is a live map node, key a NUL-terminated string, value an out pointer.
        let status = unsafe { (self.metadata_lookup)(map, key.as_ptr(), &mut value) };
        assert_eq!(status, SUCCESS, "comgr found no metadata key {key:?}");
        value
    }

    fn string(&self, node: Handle) -> String {
        assert_eq!(self.kind(node), METADATA_KIND_STRING);
        let mut size = 0;
        // SAFETY: a null buffer asks for the size (with the NUL).
        assert_eq!(
            unsafe { (self.get_metadata_string)(node, &mut size, std::ptr::null_mut()) },
            SUCCESS
        );
        let mut buf = vec![0u8; size];
        // SAFETY: buf holds `size` bytes.
        assert_eq!(
            unsafe { (self.get_metadata_string)(node, &mut size, buf.as_mut_ptr().cast()) },
            SUCCESS
        );
        buf.truncate(size.saturating_sub(1));
        String::from_utf8(buf).unwrap()
    }

    fn destroy(&self, node: Handle) {
        // SAFETY: node came from comgr and is destroyed once.
        assert_eq!(unsafe { (self.destroy_metadata)(node) }, SUCCESS);
    }
}

#[test]
fn comgr_parses_the_note_and_finds_every_kernel() {
    let Some(lib) = common::comgr() else { return };
    let c = Comgr::load(&lib);
    let kernels = common::all_kernels();
    let bytes = code_object::write(&kernels);

    let mut data = Handle::default();
    // SAFETY: out pointers are valid; bytes outlives the data object, which copies them.
    unsafe {
        assert_eq!((c.create_data)(DATA_KIND_EXECUTABLE, &mut data), SUCCESS);
        assert_eq!(
            (c.set_data)(data, bytes.len(), bytes.as_ptr().cast()),
            SUCCESS
        );
    }
    let mut root = Handle::default();
    // SAFETY: data is a live executable data object.
    let status = unsafe { (c.get_data_metadata)(data, &mut root) };
    assert_eq!(status, SUCCESS, "comgr could not read the metadata note");
    assert_eq!(c.kind(root), METADATA_KIND_MAP);

    let version = c.lookup(root, "amdhsa.version");
    assert_eq!(c.kind(version), METADATA_KIND_LIST);
    let list = c.lookup(root, "amdhsa.kernels");
    assert_eq!(c.kind(list), METADATA_KIND_LIST);
    let mut count = 0;
    // SAFETY: list is a live list node.
    assert_eq!(
        unsafe { (c.get_metadata_list_size)(list, &mut count) },
        SUCCESS
    );
    assert_eq!(count, kernels.len());
    for (i, k) in kernels.iter().enumerate() {
        let mut node = Handle::default();
        // SAFETY: i < count.
        assert_eq!(
            unsafe { (c.index_list_metadata)(list, i, &mut node) },
            SUCCESS
        );
        for (key, expected) in [
            (".name", k.name.clone()),
            (".symbol", format!("{}.kd", k.name)),
            (".group_segment_fixed_size", k.variant.lds_size.to_string()),
            (".kernarg_segment_size", "40".to_string()),
            (".wavefront_size", "32".to_string()),
        ] {
            let value = c.lookup(node, key);
            assert_eq!(c.string(value), expected, "{}: {key}", k.name);
            c.destroy(value);
        }
        c.destroy(node);
        for name in [k.name.clone(), format!("{}.kd", k.name)] {
            let cname = CString::new(name.clone()).unwrap();
            let mut sym = Handle::default();
            // SAFETY: data is live, cname NUL-terminated, sym an out pointer.
            let status = unsafe { (c.symbol_lookup)(data, cname.as_ptr(), &mut sym) };
            assert_eq!(status, SUCCESS, "comgr finds no symbol {name}");
        }
    }
    c.destroy(list);
    c.destroy(version);
    c.destroy(root);
    // SAFETY: data is released once.
    assert_eq!(unsafe { (c.release_data)(data) }, SUCCESS);
}
