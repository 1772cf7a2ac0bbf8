//! What a `crawl` argument names: a URL, or an existing file or
//! directory as its `file:` URL. The argument parser asks it of every
//! argument; `local` builds the points of the paths from it.

use std::path::Path;

use crate::url::Url;

/// A `crawl` argument: a URL, or the path of an existing file or directory.
pub fn parse_target(input: &str) -> Result<Url, String> {
    if input.contains("://") {
        return crate::url::parse_start(input).map_err(|e| e.to_string());
    }
    let path = Path::new(input);
    let Ok(found) = path.canonicalize() else {
        // "example.com" is a URL without its scheme, "./site" a path.
        let pathlike = input.starts_with(['.', '/', '~']) || is_markdown(path);
        return Err(if pathlike {
            "no such file or directory".to_string()
        } else {
            crate::url::parse_start(input)
                .err()
                .map_or_else(|| "not a URL".to_string(), |e| e.to_string())
        });
    };
    file_url(&found).ok_or_else(|| "not a path a file: URL can name".to_string())
}

/// A Markdown file, by its extension.
pub(super) fn is_markdown(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("md") || e.eq_ignore_ascii_case("markdown"))
}

/// The normalised `file:` URL of an absolute path; a directory's ends in `/`.
pub(super) fn file_url(path: &Path) -> Option<Url> {
    let url = if path.is_dir() {
        Url::from_directory_path(path)
    } else {
        Url::from_file_path(path)
    };
    crate::url::parse_start(url.ok()?.as_str()).ok()
}
