//! The bench's size report by crate: which crates the bytes of each wasm file
//! come from, code and read-only data apart, raw and deflated.
//!
//! twiggy names functions, but one `.rodata` blob and the name section top its
//! list, and they are what the ZIP is made of. So each wasm crate is linked
//! once more, in a target folder of its own (the shipped build stays as it
//! is), with the linker writing a map (`-C link-arg=--Map=…`). The map gives
//! every input chunk's file offset and size: a function's crate comes from
//! its (demangled) name, since link-time optimisation puts all code into one
//! object; a constant's crate from the object it came from (a dependency's
//! `lib<crate>-<hash>.rlib`), or from its name. Each crate's bytes are
//! deflated on their own, which ranks them by what they add to the ZIP (the
//! sum is larger than the file deflated whole). The file is measured before
//! wasm-bindgen and wasm-opt, so the totals are above the shipped sizes.

use crate::build::{link_wasm, linked_wasm};
use crate::process::root;
use anyhow::{Context, Result};
use flate2::Compression;
use flate2::write::DeflateEncoder;
use std::collections::BTreeMap;
use std::io::Write;

/// How many crates the report lists per file.
const TOP_CRATES: usize = 15;

/// The bytes one crate brings into one wasm file.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Share {
    code: Vec<u8>,
    data: Vec<u8>,
}

/// The output sections of a map the report reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    Code,
    Data,
    Other,
}

/// One input chunk of the map: where its bytes are in the file, how many, and
/// whose they are.
#[derive(Debug, PartialEq, Eq)]
struct Chunk {
    section: Section,
    offset: usize,
    size: usize,
    owner: String,
}

/// Links `package` with a map and prints its crates' shares.
pub fn report(package: &str, stem: &str) -> Result<()> {
    let target_dir = root().join("target").join("size-map");
    let map_path = target_dir.join(format!("{stem}.map"));
    std::fs::create_dir_all(&target_dir)?;
    link_wasm(
        package,
        &target_dir,
        &[format!("-Clink-arg=--Map={}", map_path.display())],
    )?;
    let wasm = linked_wasm(&target_dir, stem);
    let map = std::fs::read_to_string(&map_path).with_context(|| format!("reading {}", map_path.display()))?;
    let bytes = std::fs::read(&wasm).with_context(|| format!("reading {}", wasm.display()))?;
    print_shares(stem, &shares(&chunks(&map), &bytes))
}

/// The code and read-only data chunks of a wasm-ld map, in file order.
///
/// Each line holds an address, a file offset and a size (hex), then a name
/// indented by its depth: an output section (`CODE`, `DATA`, `CUSTOM(name)`)
/// or a data segment of DATA (`.rodata`) right after the size, an input chunk (`object:(section)`) deeper, and the
/// symbols inside a chunk deeper still.
fn chunks(map: &str) -> Vec<Chunk> {
    let mut section = Section::Other;
    let mut found = Vec::new();
    for line in map.lines() {
        let Some((offset, size, depth, name)) = columns(line) else {
            continue;
        };
        if depth < INPUT_DEPTH {
            section = match name {
                "CODE" => Section::Code,
                "DATA" => Section::Data,
                // A data segment (`.rodata`, `.data`) inside DATA.
                _ if name.starts_with('.') => section,
                _ => Section::Other,
            };
            continue;
        }
        let Some((object, inner)) = name.split_once(":(") else {
            continue;
        };
        let inner = inner.strip_suffix(')').unwrap_or(inner);
        let owner = match section {
            Section::Code => crate_of_symbol(inner).unwrap_or_else(|| OTHER.to_owned()),
            Section::Data if inner.starts_with(".rodata") => crate_of_data(object, inner),
            _ => continue,
        };
        found.push(Chunk {
            section,
            offset,
            size,
            owner,
        });
    }
    found
}

/// Spaces before an input chunk's name (an output section's has one).
const INPUT_DEPTH: usize = 4;

/// A map line's file offset, size, the depth of its name and the name; `None`
/// for the header and anything else that is not such a line.
fn columns(line: &str) -> Option<(usize, usize, usize, &str)> {
    let mut rest = line;
    let mut numbers = [0usize; 2];
    for index in 0..3 {
        let trimmed = rest.trim_start();
        let end = trimmed.find(' ')?;
        let (column, tail) = trimmed.split_at(end);
        if index > 0 {
            numbers[index - 1] = usize::from_str_radix(column, 16).ok()?;
        } else if column != "-" && usize::from_str_radix(column, 16).is_err() {
            return None;
        }
        rest = tail;
    }
    let name = rest.trim_start();
    if name.is_empty() {
        return None;
    }
    Some((numbers[0], numbers[1], rest.len() - name.len(), name))
}

/// The owner of what no Rust name or object tells (the allocator's C,
/// compiler builtins).
const OTHER: &str = "(other)";

/// The crate a function belongs to: the first path segment of its demangled
/// name (`<T as Trait>` and `&`, `dyn` are looked through); `None` for a
/// name that is not Rust's.
fn crate_of_symbol(symbol: &str) -> Option<String> {
    let demangled = rustc_demangle::try_demangle(symbol).ok()?;
    let text = format!("{demangled:#}");
    let start = text.trim_start_matches(['<', '&', '(', '*', ' ']);
    let start = start
        .strip_prefix("mut ")
        .or_else(|| start.strip_prefix("dyn "))
        .or_else(|| start.strip_prefix("const "))
        .unwrap_or(start);
    let name: String = start
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// The crate a read-only constant belongs to: the rlib it came from, else
/// its own name, else the linked crate's object (constants that link-time
/// optimisation moved into it, mostly its own).
fn crate_of_data(object: &str, section: &str) -> String {
    let file = object.rsplit('/').next().unwrap_or(object);
    if let Some(rest) = file.strip_prefix("lib")
        && let Some((krate, _)) = rest.split_once('-')
        && file.contains(".rlib(")
    {
        return krate.to_owned();
    }
    let symbol = section.trim_start_matches(".rodata").trim_start_matches('.');
    if let Some(named) = crate_of_symbol(symbol) {
        return named;
    }
    match file.split_once('.') {
        Some((krate, _)) if !file.starts_with('<') => krate.to_owned(),
        _ => "(linker)".to_owned(),
    }
}

/// Each owner's bytes, read from the linked file.
fn shares(chunks: &[Chunk], file: &[u8]) -> BTreeMap<String, Share> {
    let mut shares: BTreeMap<String, Share> = BTreeMap::new();
    for chunk in chunks {
        let Some(bytes) = file.get(chunk.offset..chunk.offset.saturating_add(chunk.size)) else {
            continue;
        };
        let share = shares.entry(chunk.owner.clone()).or_default();
        match chunk.section {
            Section::Code => share.code.extend_from_slice(bytes),
            Section::Data => share.data.extend_from_slice(bytes),
            Section::Other => {}
        }
    }
    shares
}

fn deflated(bytes: &[u8]) -> Result<usize> {
    if bytes.is_empty() {
        return Ok(0);
    }
    let mut encoder = DeflateEncoder::new(Vec::new(), Compression::best());
    encoder.write_all(bytes)?;
    Ok(encoder.finish()?.len())
}

/// One line of the report.
struct Row<'a> {
    owner: &'a str,
    code: usize,
    code_deflated: usize,
    data: usize,
    data_deflated: usize,
}

fn print_shares(stem: &str, shares: &BTreeMap<String, Share>) -> Result<()> {
    let mut rows = Vec::new();
    for (owner, share) in shares {
        rows.push(Row {
            owner,
            code: share.code.len(),
            code_deflated: deflated(&share.code)?,
            data: share.data.len(),
            data_deflated: deflated(&share.data)?,
        });
    }
    rows.sort_by_key(|row| (std::cmp::Reverse(row.code_deflated + row.data_deflated), row.owner));
    println!(
        "\n{stem}.wasm by crate (linked with a map, before wasm-bindgen and wasm-opt; each crate deflated on its own):"
    );
    println!(
        "  {:<24} {:>22} {:>22}",
        "crate", "code raw → deflated", "rodata raw → deflated"
    );
    let line = |owner: &str, code: usize, code_z: usize, data: usize, data_z: usize| {
        println!("  {owner:<24} {code:>10} → {code_z:>9} {data:>10} → {data_z:>9}");
    };
    for row in rows.iter().take(TOP_CRATES) {
        line(row.owner, row.code, row.code_deflated, row.data, row.data_deflated);
    }
    let project = project_crates()?;
    for (label, kind) in [
        ("this project's crates", Some(Owner::Project)),
        ("dependencies and std", Some(Owner::Dependency)),
        (&*format!("all {} owners", rows.len()), None),
    ] {
        let mine = || {
            rows.iter()
                .filter(|row| kind.is_none_or(|kind| owner_kind(row.owner, &project) == kind))
        };
        line(
            label,
            mine().map(|row| row.code).sum(),
            mine().map(|row| row.code_deflated).sum(),
            mine().map(|row| row.data).sum(),
            mine().map(|row| row.data_deflated).sum(),
        );
    }
    Ok(())
}

/// Whose crate an owner of the report is: the split says how much of a file
/// the project's own code could ever take back, and how much the crates it
/// builds on and the standard library bring whatever the project does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Owner {
    /// One of the workspace's crates.
    Project,
    /// A crates.io dependency or the standard library (`core`, `alloc`, `std`).
    Dependency,
    /// Bytes the map names no crate for (`(linker)`, `(other)`).
    Unattributed,
}

/// The workspace's crates as the map names them (`crates/<name>`, with `_`
/// for `-`), read from the folder so a new crate counts without an edit here.
fn project_crates() -> Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(root().join("crates"))? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            names.push(entry.file_name().to_string_lossy().replace('-', "_"));
        }
    }
    Ok(names)
}

fn owner_kind(owner: &str, project: &[String]) -> Owner {
    if project.iter().any(|name| name == owner) {
        Owner::Project
    } else if owner.starts_with('(') {
        Owner::Unattributed
    } else {
        Owner::Dependency
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape of wasm-ld's map: output sections, input chunks, symbols.
    const MAP: &str = "    Addr      Off     Size Out     In      Symbol
       -        8       10 TYPE
       -       20       30 CODE
       -       22        4         /t/deps/app.app.1-cgu.0.rcgu.o:(_ZN5alloc7raw_vec11finish_grow17h0123456789abcdefE)
       -       22        4                 _ZN5alloc7raw_vec11finish_grow17h0123456789abcdefE
       -       26        6         /t/deps/app.app.1-cgu.0.rcgu.o:(_ZN53_$LT$html5ever..Token$u20$as$u20$core..fmt..Debug$GT$3fmt17h0123456789abcdefE)
       -       2c        2         /rustlib/libcompiler_builtins-1.rlib(memcpy.o):(memcpy)
       -       50       20 DATA
  100000       51       18 .rodata
  100000       52        3         /t/deps/libweb_atoms-0123.rlib(web_atoms.o):(.rodata..Lanon.1)
  100003       55        2         /t/deps/app.app.1-cgu.0.rcgu.o:(.rodata._ZN3app6LABELS17h0123456789abcdefE)
  100005       57        1         /t/deps/app.app.1-cgu.0.rcgu.o:(.rodata..Lanon.2)
  100006       58        1         <internal>:(.rodata)
  100007       59        4         /t/deps/app.app.1-cgu.0.rcgu.o:(.data.counter)
       -       70        9 CUSTOM(name)
";

    fn chunk(section: Section, offset: usize, size: usize, owner: &str) -> Chunk {
        Chunk {
            section,
            offset,
            size,
            owner: owner.to_owned(),
        }
    }

    #[test]
    fn chunks_are_owned_by_their_crate() {
        assert_eq!(
            chunks(MAP),
            [
                chunk(Section::Code, 0x22, 4, "alloc"),
                chunk(Section::Code, 0x26, 6, "html5ever"),
                chunk(Section::Code, 0x2c, 2, "(other)"),
                chunk(Section::Data, 0x52, 3, "web_atoms"),
                chunk(Section::Data, 0x55, 2, "app"),
                chunk(Section::Data, 0x57, 1, "app"),
                chunk(Section::Data, 0x58, 1, "(linker)"),
            ]
        );
    }

    #[test]
    fn shares_read_each_owners_bytes_from_the_file() {
        let file: Vec<u8> = (0u8..0x80).collect();
        let shares = shares(&chunks(MAP), &file);
        assert_eq!(shares["alloc"].code, [0x22, 0x23, 0x24, 0x25]);
        assert_eq!(shares["app"].data, [0x55, 0x56, 0x57]);
        assert_eq!(shares["web_atoms"].data, [0x52, 0x53, 0x54]);
        assert!(shares["web_atoms"].code.is_empty());
    }

    #[test]
    fn owners_are_the_project_its_dependencies_or_unattributed() {
        let cases = [
            ("worker_core", Owner::Project),
            ("sidepanel", Owner::Project),
            ("protocol", Owner::Project),
            ("content_bridge", Owner::Project),
            ("core", Owner::Dependency),
            ("regex_automata", Owner::Dependency),
            ("web_atoms", Owner::Dependency),
            ("(linker)", Owner::Unattributed),
            ("(other)", Owner::Unattributed),
        ];
        let project = project_crates().expect("the crates folder");
        for (owner, kind) in cases {
            assert_eq!(owner_kind(owner, &project), kind, "{owner}");
        }
    }

    #[test]
    fn a_chunk_past_the_end_of_the_file_is_left_out() {
        let shares = shares(&chunks(MAP), &[0; 0x30]);
        assert!(!shares.contains_key("web_atoms"));
        assert_eq!(shares["html5ever"].code.len(), 6);
    }
}
