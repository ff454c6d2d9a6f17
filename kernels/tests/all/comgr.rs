//! comgr, ROCm's code object manager, parses our code object as the ROCm stack would: its
//! metadata reader must find every kernel (name, descriptor symbol, sizes) in the note, and its
//! symbol lookup must find `<k>` and `<k>.kd`, for a code object of every target of the target
//! table. The declarations below are the few comgr functions
//! called, copied by hand from `amd_comgr.h` (Debian `libamd-comgr-dev` 5.2.3), enum values
//! checked against it.

use crate::common;

use ds_isa::target::{Target, DEFAULT};
use ds_kernels::code_object;
use ds_kernels::kernel_targets;
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
    get_isa_count: Symbol<'l, unsafe extern "C" fn(*mut usize) -> Status>,
    get_isa_name: Symbol<'l, unsafe extern "C" fn(usize, *mut *const c_char) -> Status>,
    get_data_isa_name: Symbol<'l, unsafe extern "C" fn(Handle, *mut usize, *mut c_char) -> Status>,
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
                get_isa_count: lib.get(b"amd_comgr_get_isa_count").unwrap(),
                get_isa_name: lib.get(b"amd_comgr_get_isa_name").unwrap(),
                get_data_isa_name: lib.get(b"amd_comgr_get_data_isa_name").unwrap(),
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

    /// A data object of kind executable holding `bytes`.
    fn executable(&self, bytes: &[u8]) -> Handle {
        let mut data = Handle::default();
        // SAFETY: out pointers are valid; comgr copies the bytes.
        unsafe {
            assert_eq!((self.create_data)(DATA_KIND_EXECUTABLE, &mut data), SUCCESS);
            assert_eq!(
                (self.set_data)(data, bytes.len(), bytes.as_ptr().cast()),
                SUCCESS
            );
        }
        data
    }

    /// Every ISA name this comgr knows (`amdgcn-amd-amdhsa--gfx...`).
    fn isa_names(&self) -> Vec<String> {
        let mut count = 0;
        // SAFETY: count is a valid out pointer.
        assert_eq!(unsafe { (self.get_isa_count)(&mut count) }, SUCCESS);
        (0..count)
            .map(|i| {
                let mut name: *const c_char = std::ptr::null();
                // SAFETY: i < count; comgr returns a static NUL-terminated string.
                assert_eq!(unsafe { (self.get_isa_name)(i, &mut name) }, SUCCESS);
                // SAFETY: name is non-null and NUL-terminated (checked status above).
                unsafe { std::ffi::CStr::from_ptr(name) }
                    .to_string_lossy()
                    .into_owned()
            })
            .collect()
    }

    /// The ISA name comgr reads from a code object's ELF header, or its status.
    fn data_isa_name(&self, data: Handle) -> Result<String, Status> {
        let mut size = 0;
        // SAFETY: a null buffer asks for the size (with the NUL).
        let status = unsafe { (self.get_data_isa_name)(data, &mut size, std::ptr::null_mut()) };
        if status != SUCCESS {
            return Err(status);
        }
        let mut buf = vec![0u8; size];
        // SAFETY: buf holds `size` bytes.
        let status = unsafe { (self.get_data_isa_name)(data, &mut size, buf.as_mut_ptr().cast()) };
        if status != SUCCESS {
            return Err(status);
        }
        buf.truncate(size.saturating_sub(1));
        Ok(String::from_utf8(buf).unwrap())
    }

    fn destroy(&self, node: Handle) {
        // SAFETY: node came from comgr and is destroyed once.
        assert_eq!(unsafe { (self.destroy_metadata)(node) }, SUCCESS);
    }
}

/// The kernel targets of the table ROCm 5.2's comgr (Debian's libamd-comgr2 2.4.0) lists by ISA
/// name: gfx900 to gfx90c (the Vega APUs and Vega 12 included) and the gfx10 ones (its ISA list
/// ends with gfx1036, RDNA 2; no gfx942 or gfx950). Its ISA-name query knows code
/// object V4 headers at most, so `amd_comgr_get_data_isa_name` refuses every code object of ours
/// (V5 or V6; status 2, invalid argument), listed target or not, while its metadata reader and
/// symbol lookup read them completely. Asserted, so a comgr that knows more says so here.
const KNOWN_TO_COMGR: [&str; 19] = [
    "gfx900", "gfx902", "gfx904", "gfx906", "gfx908", "gfx909", "gfx90a", "gfx90c", "gfx1010",
    "gfx1011", "gfx1012", "gfx1013", "gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034",
    "gfx1035", "gfx1036",
];

/// `EF_AMDGPU_MACH_AMDGCN_GFX1030` (AMDGPUUsage, "ELF Header"): an RDNA 2 processor comgr 5.2
/// does know. With it and the code object V4 ABI version (2), the ISA-name query answers on our
/// code object: the control showing the refusals above are about the target, not the file.
const GFX1030_MACHINE: u8 = 0x36;

#[test]
fn comgr_parses_the_note_and_finds_every_kernel_for_every_target() {
    let Some(lib) = common::comgr() else { return };
    let c = Comgr::load(&lib);
    let known = c.isa_names();
    for t in kernel_targets() {
        let knows = known.contains(&t.hsa_target_id());
        assert_eq!(
            knows,
            KNOWN_TO_COMGR.contains(&t.name),
            "{t}: comgr's ISA list is {known:?}"
        );
        // No code object of ours is named (V5 and V6 headers; see KNOWN_TO_COMGR).
        comgr_reads(&c, t, false);
    }
    // Control: the same code object with an RDNA 2 machine value and the V4 ABI version is named.
    let mut bytes = code_object::write(DEFAULT, &common::all_kernels()[..1]);
    bytes[48] = GFX1030_MACHINE;
    bytes[8] = 2;
    let data = c.executable(&bytes);
    assert_eq!(
        c.data_isa_name(data).as_deref(),
        Ok("amdgcn-amd-amdhsa--gfx1030")
    );
    // SAFETY: data is released once.
    assert_eq!(unsafe { (c.release_data)(data) }, SUCCESS);
}

/// comgr reads the code object for `t`: the ISA name from the header when comgr knows the
/// target (and a refusal when it does not), then the metadata and every symbol.
fn comgr_reads(c: &Comgr, t: &'static Target, knows: bool) {
    let kernels = common::all_kernels_for(t);
    let bytes = code_object::write(t, &kernels);

    let data = c.executable(&bytes);
    match c.data_isa_name(data) {
        Ok(isa) => {
            assert!(knows, "{t}: comgr names an ISA it does not list: {isa}");
            assert_eq!(isa, t.hsa_target_id());
        }
        Err(status) => assert!(!knows, "{t}: comgr cannot name the ISA (status {status})"),
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
            (".wavefront_size", k.variant.wave.lanes().to_string()),
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
