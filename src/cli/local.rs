//! Local input to `crawl`: a path typed where a URL goes becomes its
//! `file:` URL (a directory's ending in `/`), `--root` and `--exclude`
//! paths become `file:` prefixes of the point's directory, and Markdown
//! mode (a `.md` argument, or `--markdown`) makes one crawl point of each
//! Markdown file named or found under a directory argument.

use std::path::{Path, PathBuf};

use super::args::ScopeArgs;
use super::target::{file_url, is_markdown};
use super::CliError;
use crate::url::{is_local, Url};

/// The start URLs and each one's scope: local ones with their path
/// prefixes made `file:` URLs; in Markdown mode every Markdown file of the
/// arguments, with the mode's defaults.
pub fn points(
    urls: Vec<Url>,
    scope: &ScopeArgs,
    markdown: bool,
) -> Result<Vec<(Url, ScopeArgs)>, CliError> {
    let markdown = markdown
        || urls
            .iter()
            .any(|u| is_local(u) && is_markdown(Path::new(u.path())));
    if !markdown {
        return Ok(urls
            .into_iter()
            .map(|u| {
                let own = if is_local(&u) {
                    with_paths(scope, &crate::url::default_root(&u))
                } else {
                    scope.clone()
                };
                (u, own)
            })
            .collect());
    }
    let root = common_dir(urls.iter().filter(|u| is_local(u)));
    let mut local = with_paths(scope, &root);
    // lychee's job: the links of the named files, each target checked
    // (fragments too), and no crawl beyond them.
    local.root.get_or_insert(root);
    local.depth.get_or_insert(1);
    local.check_fragments.get_or_insert(true);
    local.check_external.get_or_insert(true);
    let mut out = Vec::new();
    for url in urls {
        if !is_local(&url) {
            out.push((url, scope.clone()));
            continue;
        }
        if !url.path().ends_with('/') {
            out.push((url, local.clone()));
            continue;
        }
        let dir = url
            .to_file_path()
            .map_err(|_| CliError::NoMarkdown(url.to_string()))?;
        let found = markdown_under(&dir);
        if found.is_empty() {
            return Err(CliError::NoMarkdown(dir.display().to_string()));
        }
        out.extend(
            found
                .iter()
                .filter_map(|p| file_url(p))
                .map(|u| (u, local.clone())),
        );
    }
    Ok(out)
}

/// `--root` and `--exclude` as typed for a local point: a path (relative
/// to the point's directory `dir`, or absolute) becomes its `file:`
/// prefix; a URL stays as it is.
fn with_paths(scope: &ScopeArgs, dir: &str) -> ScopeArgs {
    let mut own = scope.clone();
    let base = Url::parse(dir).ok();
    let prefix = |typed: &str| -> String {
        if typed.contains("://") {
            return typed.to_string();
        }
        let url = if Path::new(typed).is_absolute() {
            Url::from_file_path(typed).ok()
        } else {
            base.as_ref().and_then(|b| b.join(typed).ok())
        };
        let Some(mut url) = url.map(crate::url::normalize) else {
            return typed.to_string();
        };
        // `--exclude drafts` means the directory when there is one.
        if !url.path().ends_with('/') && url.to_file_path().is_ok_and(|p| p.is_dir()) {
            url.set_path(&format!("{}/", url.path()));
        }
        url.to_string()
    };
    own.root = scope.root.as_deref().map(prefix);
    own.excludes = scope.excludes.iter().map(|e| prefix(e)).collect();
    own
}

/// The deepest directory holding every one of `urls`, as a `file:` prefix.
fn common_dir<'a>(urls: impl Iterator<Item = &'a Url>) -> String {
    let mut common: Option<String> = None;
    for url in urls {
        let dir = crate::url::default_root(url);
        common = Some(match common {
            None => dir,
            Some(c) => {
                let same = c
                    .char_indices()
                    .zip(dir.chars())
                    .take_while(|((_, a), b)| a == b)
                    .filter(|((_, a), _)| *a == '/')
                    .last()
                    .map_or(0, |((i, _), _)| i + 1);
                c[..same].to_string()
            }
        });
    }
    common.unwrap_or_else(|| "file:///".to_string())
}

/// The Markdown files under `dir`, in path order; hidden entries (`.git`)
/// are passed over, as are links to directories (no loops).
fn markdown_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                dirs.push(path);
            } else if is_markdown(&path) && path.is_file() {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_defaults_are_for_its_files_only() {
        let urls = [
            "file:///r/README.md",
            "file:///r/docs/a.md",
            "http://h.test/",
        ]
        .iter()
        .map(|u| Url::parse(u).unwrap())
        .collect();
        let scope = ScopeArgs {
            excludes: vec!["docs/old".to_string()],
            ..ScopeArgs::default()
        };
        let got = points(urls, &scope, false).unwrap();
        let (readme, web) = (&got[0].1, &got[2].1);
        assert_eq!(readme.root.as_deref(), Some("file:///r/"));
        assert_eq!(readme.excludes, ["file:///r/docs/old"]);
        assert_eq!(
            (readme.depth, readme.check_fragments, readme.check_external),
            (Some(1), Some(true), Some(true))
        );
        assert_eq!(got[1].1.root.as_deref(), Some("file:///r/"));
        assert_eq!((web.root.as_deref(), web.depth), (None, None));
        assert_eq!(web.excludes, ["docs/old"]);
    }

    #[test]
    fn common_dir_is_the_deepest_shared_directory() {
        let urls: Vec<Url> = [
            "file:///r/README.md",
            "file:///r/docs/a/x.md",
            "file:///r/docs/b.md",
        ]
        .iter()
        .map(|u| Url::parse(u).unwrap())
        .collect();
        assert_eq!(common_dir(urls.iter()), "file:///r/");
        assert_eq!(common_dir(urls[1..].iter()), "file:///r/docs/");
        assert_eq!(common_dir(urls[1..2].iter()), "file:///r/docs/a/");
    }
}
