//! Crawl points: the one home of every rule about them. What a valid point
//! is (an http(s) start URL, a root prefix with a scheme, a page limit of at
//! least one, a user and password together, one point per start URL), and
//! the operations both faces offer: add, save a whole edited record, update,
//! enable/disable, delete, and the active set a crawl starts from; the
//! settings' parsers (`--resolve`, `--append-query`), credentials typed in
//! the start URL, and marking a point whose scope changed for re-scoping.
//! The CLI, clap's value parsers and the console's form all call this
//! module, so they accept and refuse the same settings. This module owns
//! the errors and what a valid record is; the settings as typed are
//! parsed in [`settings`], the operations on the store are [`ops`].

mod ops;
mod settings;

pub use ops::{
    add, crawl_set, list, list_deleted, purge, remove, restore, save, set_active, update, upsert,
};
pub(crate) use ops::{write, Refusal};
pub use settings::{
    parse_append_query, parse_depth, parse_docs, parse_exclude, parse_max_pages, parse_resolve,
    parse_root,
};

use crate::store::{PointId, PointRecord, Resolve, StoreError};
use crate::url::LinkReject;

/// Why a crawl point setting or operation was refused.
#[derive(Debug, thiserror::Error)]
pub enum PointError {
    #[error("required (http:// or https://)")]
    MissingUrl,
    #[error(transparent)]
    BadUrl(#[from] LinkReject),
    #[error("already crawl point {id} (edit that one)")]
    Duplicate { id: PointId },
    #[error("must start with http:// or https://")]
    BadRoot,
    #[error("a URL prefix must not hold user:password@ (give --user and --password)")]
    RootWithCredentials,
    #[error("user {typed} in the URL and {flag} from --user: give one")]
    CredentialsTwice { typed: String, flag: String },
    #[error("{0}")]
    BadResolve(String),
    #[error("{0}")]
    BadAppendQuery(String),
    #[error("{value:?} is not a whole number")]
    NotANumber { setting: Setting, value: String },
    #[error("must be 1 or more (leave it out for no limit)")]
    ZeroMaxPages,
    #[error("required with a password")]
    PasswordWithoutUser,
    #[error("required with a user")]
    UserWithoutPassword,
    #[error("no crawl point {0}")]
    NotFound(PointId),
    #[error("nothing to crawl: no crawl point is active")]
    NothingToCrawl,
    #[error("crawl point {0} is disabled: enable it first")]
    Disabled(PointId),
    #[error("crawl point {0} is deleted: restore it first (crawlscope point restore {0})")]
    Deleted(PointId),
    #[error("crawl point {0} is not deleted: nothing to restore")]
    NotDeleted(PointId),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("no document {0:?} (crawlscope doc list)")]
    NoDocument(String),
    #[error("document {0:?} is deleted: restore it first (crawlscope doc restore {0})")]
    DeletedDocument(String),
    #[error(transparent)]
    DocName(crate::doc_name::BadName),
    #[error("--exclude-regex: {0}")]
    BadExcludeRegex(String),
    /// `--include` or `--remap` (named) refused, and why.
    #[error("{0}: {1}")]
    BadPattern(&'static str, String),
}

/// The setting a refusal is about, named as people see it; `None` when it
/// is about the operation, not one setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    Url,
    Root,
    Depth,
    MaxPages,
    User,
    Password,
    Resolve,
    AppendQuery,
    Documents,
}

impl Setting {
    pub fn label(self) -> &'static str {
        match self {
            Setting::Url => "URL",
            Setting::Root => "Root prefix",
            Setting::Depth => "Depth limit",
            Setting::MaxPages => "Max pages",
            Setting::User => "User",
            Setting::Password => "Password",
            Setting::Resolve => "Resolve",
            Setting::AppendQuery => "Append query",
            Setting::Documents => "Documents",
        }
    }
}

impl PointError {
    pub fn setting(&self) -> Option<Setting> {
        match self {
            PointError::MissingUrl | PointError::BadUrl(_) | PointError::Duplicate { .. } => {
                Some(Setting::Url)
            }
            PointError::BadRoot | PointError::RootWithCredentials => Some(Setting::Root),
            PointError::CredentialsTwice { .. } => Some(Setting::User),
            PointError::BadResolve(_) => Some(Setting::Resolve),
            PointError::BadAppendQuery(_) => Some(Setting::AppendQuery),
            PointError::NotANumber { setting, .. } => Some(*setting),
            PointError::ZeroMaxPages => Some(Setting::MaxPages),
            PointError::PasswordWithoutUser => Some(Setting::User),
            PointError::UserWithoutPassword => Some(Setting::Password),
            PointError::NotFound(_)
            | PointError::NothingToCrawl
            | PointError::Disabled(_)
            | PointError::Deleted(_)
            | PointError::NotDeleted(_)
            | PointError::Store(_)
            | PointError::BadExcludeRegex(_)
            | PointError::BadPattern(..) => None,
            PointError::NoDocument(_) | PointError::DeletedDocument(_) | PointError::DocName(_) => {
                Some(Setting::Documents)
            }
        }
    }
}

pub type Result<T> = std::result::Result<T, PointError>;

/// The settings a point has beyond URL, root and limits, as `(label,
/// value)` for the faces to list: only those set, in a fixed order.
pub fn extras(p: &PointRecord) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if !p.excludes.is_empty() {
        out.push(("excludes", p.excludes.join(", ")));
    }
    if let Some(user) = &p.user {
        out.push(("user", user.clone()));
    }
    if p.distinct_www {
        out.push(("www", "distinct sites".to_string()));
    }
    if !p.resolve.is_empty() {
        let list: Vec<String> = p.resolve.iter().map(ToString::to_string).collect();
        out.push(("resolve", list.join(", ")));
    }
    if !p.append_query.is_empty() {
        let list: Vec<String> = p
            .append_query
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        out.push(("append query", list.join("&")));
    }
    if p.dirty {
        out.push(("scope changed", "(re-scoped on the next crawl)".to_string()));
    }
    if p.follow_nofollow {
        out.push(("nofollow links", "followed".to_string()));
    }
    if p.no_sitemaps {
        out.push(("sitemaps", "not read".to_string()));
    }
    if p.check_external {
        out.push(("external links", "checked".to_string()));
    }
    if let Some(words) = &p.stopwords {
        out.push(("stopwords", format!("{} of its own", words.len())));
    }
    if !p.docs.is_empty() {
        out.push(("documents", p.docs.join(", ")));
    }
    if !p.accept.is_empty() {
        let shown = crate::accept::Shown(&p.accept).to_string();
        out.push(("accepted statuses", shown));
    }
    if !p.exclude_regex.is_empty() {
        out.push(("excluded patterns", p.exclude_regex.join(" ")));
    }
    if !p.include.is_empty() {
        out.push(("included patterns", p.include.join(" ")));
    }
    if !p.remap.is_empty() {
        out.push(("remapped", p.remap.join(", ")));
    }
    if p.check_fragments {
        out.push(("fragments", "checked".to_string()));
    }
    if p.no_resources {
        out.push(("resources", "not checked".to_string()));
    }
    out
}

/// The origins a point's credentials, headers and appended query go to:
/// its start URL's, and the `www.` twin's when the twins are one site.
pub fn site_origins(p: &PointRecord) -> Vec<String> {
    let Ok(url) = crate::url::Url::parse(&p.url) else {
        return Vec::new();
    };
    let twin = (!p.distinct_www)
        .then(|| crate::url::on_www_twin(&url))
        .flatten();
    std::iter::once(url)
        .chain(twin)
        .map(|u| crate::url::origin(&u))
        .collect()
}

/// The `--resolve` entries of the points crawled together, for their one
/// HTTP client: a host sent to two addresses is refused, naming both points.
pub fn merge_resolves(
    points: &[(PointId, Vec<Resolve>)],
) -> std::result::Result<Vec<Resolve>, String> {
    let mut out: Vec<(PointId, Resolve)> = Vec::new();
    for (id, list) in points {
        for r in list {
            match out.iter().find(|(_, o)| o.host == r.host) {
                Some((_, o)) if o.addr == r.addr => {}
                Some((other, o)) => {
                    return Err(format!(
                        "crawl points {other} and {id} resolve {} differently ({o} and {r}): crawl them separately",
                        r.host
                    ))
                }
                None => out.push((*id, r.clone())),
            }
        }
    }
    Ok(out.into_iter().map(|(_, r)| r).collect())
}

/// Every rule a stored point must satisfy on its own; the start URL is
/// stored normalised, so a point matches the URLs the crawler records.
pub fn validate(mut rec: PointRecord) -> Result<PointRecord> {
    if rec.url.trim().is_empty() {
        return Err(PointError::MissingUrl);
    }
    let url = crate::url::parse_start(rec.url.trim())?;
    // Credentials typed in the URL are the point's basic auth: the stored
    // URL never holds them.
    if let Some((user, password)) = crate::url::userinfo(&url) {
        match &rec.user {
            Some(flag) if *flag != user => {
                return Err(PointError::CredentialsTwice {
                    typed: user,
                    flag: flag.clone(),
                })
            }
            Some(_) => {}
            None => {
                rec.user = Some(user);
                rec.password = Some(password.unwrap_or_default());
            }
        }
    }
    rec.url = crate::url::without_userinfo(&url).to_string();
    // A point is in a document once, however often it was named.
    let mut docs: Vec<String> = Vec::with_capacity(rec.docs.len());
    for doc in std::mem::take(&mut rec.docs) {
        if !docs.contains(&doc) {
            docs.push(doc);
        }
    }
    rec.docs = docs;
    rec.root = parse_root(&rec.root)?;
    for exclude in &rec.excludes {
        parse_exclude(exclude)?;
    }
    crate::exclude_regex::check_all(&rec.exclude_regex).map_err(PointError::BadExcludeRegex)?;
    crate::crawl::check_include(&rec.include)
        .map_err(|e| PointError::BadPattern("--include", e))?;
    for remap in &rec.remap {
        crate::crawl::parse_remap(remap).map_err(|e| PointError::BadPattern("--remap", e))?;
    }
    merge_resolves(&[(0, rec.resolve.clone())])
        .map_err(|_| PointError::BadResolve("one host is given two addresses".to_string()))?;
    if rec.max_pages == Some(0) {
        return Err(PointError::ZeroMaxPages);
    }
    match (&rec.user, &rec.password) {
        (None, Some(_)) => return Err(PointError::PasswordWithoutUser),
        (Some(_), None) => return Err(PointError::UserWithoutPassword),
        _ => {}
    }
    Ok(rec)
}

/// A new record for `url` with the default scope (the URL's origin), active.
pub fn new_record(url: &crate::url::Url) -> PointRecord {
    PointRecord {
        url: url.to_string(),
        root: crate::url::default_root(url),
        active: true,
        ..Default::default()
    }
}

/// A start URL belongs to one point only: refuses `url` when a point of
/// `stored` other than `id` has it.
pub fn unique_in(stored: &[(PointId, PointRecord)], id: Option<PointId>, url: &str) -> Result<()> {
    match stored
        .iter()
        .find(|(other, p)| Some(*other) != id && p.url == url)
    {
        Some((other, _)) => Err(PointError::Duplicate { id: *other }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    //! Both faces against one table: the CLI (clap's parsers, then the
    //! command on a real store) and the console's form must accept and
    //! refuse the same settings, and store the same record.

    use clap::Parser;

    use super::*;
    use crate::cli::Cli;
    use crate::store::prelude::*;
    use crate::store::Store;
    use crate::tui::panes::points::Form;

    /// url, root, depth, max pages, user, password; accepted?
    const CASES: &[([&str; 6], bool)] = &[
        (["http://a.test/", "", "", "", "", ""], true),
        (
            ["http://b.test/x", "https://b.test/", "2", "5", "", ""],
            true,
        ),
        (["http://c.test/", "", "", "", "ann", "s3cret"], true),
        (["c.test/x", "", "", "", "", ""], false),
        (["ftp://c.test/", "", "", "", "", ""], false),
        (["http://d.test/", "d.test/", "", "", "", ""], false),
        (["http://e.test/", "", "", "0", "", ""], false),
        (["http://f.test/", "", "", "ten", "", ""], false),
        (["http://g.test/", "", "x", "", "", ""], false),
        (["http://h.test/", "", "", "", "ann", ""], false),
        (["http://i.test/", "", "", "", "", "s3cret"], false),
        (["http://dup.test/", "", "", "", "", ""], false),
        (["HTTP://DUP.test:80/", "", "", "", "", ""], false),
    ];

    fn cli_add(db: &std::path::Path, v: &[&str; 6]) -> bool {
        let mut argv = vec![
            "crawlscope",
            "--db",
            db.to_str().unwrap(),
            "point",
            "add",
            v[0],
        ];
        for (flag, value) in ["--root", "--depth", "--max-pages", "--user", "--password"]
            .into_iter()
            .zip(&v[1..])
        {
            if !value.is_empty() {
                argv.extend([flag, value]);
            }
        }
        Cli::try_parse_from(argv).is_ok_and(|cli| crate::cli::run(cli).is_ok())
    }

    #[test]
    fn both_faces_accept_and_refuse_the_same_points() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("store");
        let store = Store::open(&db).unwrap();
        add(
            &store,
            new_record(&crate::url::parse_start("http://dup.test/").unwrap()),
        )
        .unwrap();
        drop(store);
        for (v, accepted) in CASES {
            let store = Store::open(&db).unwrap();
            let stored = list(&store).unwrap();
            drop(store);
            let form =
                Form::typed([v[0], v[1], v[2], v[3], "", v[4], v[5], ""]).validate(&stored, &[]);
            assert_eq!(form.is_ok(), *accepted, "console form on {v:?}: {form:?}");
            assert_eq!(cli_add(&db, v), *accepted, "CLI point add on {v:?}");
            if let Ok(rec) = form {
                let store = Store::open(&db).unwrap();
                let (_, saved) = store
                    .read()
                    .unwrap()
                    .point_by_url(&rec.url)
                    .unwrap()
                    .unwrap();
                // The store stamps who and when; the rest is what the form said.
                let stamped = PointRecord {
                    created_at: saved.created_at,
                    updated_at: saved.updated_at,
                    updated_by: saved.updated_by.clone(),
                    ..rec
                };
                assert_eq!(saved, stamped, "the two faces store one record for {v:?}");
            }
        }
    }

    #[test]
    fn refusals_name_the_rule() {
        assert!(matches!(
            parse_root("example.com/"),
            Err(PointError::BadRoot)
        ));
        assert!(matches!(
            parse_max_pages("0"),
            Err(PointError::ZeroMaxPages)
        ));
        assert!(matches!(
            parse_depth("-1"),
            Err(PointError::NotANumber {
                setting: Setting::Depth,
                ..
            })
        ));
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s")).unwrap();
        assert!(matches!(remove(&store, 9), Err(PointError::NotFound(9))));
        assert!(matches!(
            crawl_set(&store, vec![]),
            Err(PointError::NothingToCrawl)
        ));
        let (id, _) = add(
            &store,
            new_record(&crate::url::parse_start("http://a.test/").unwrap()),
        )
        .unwrap();
        set_active(&store, id, false).unwrap();
        assert!(matches!(
            crawl_set(&store, vec![]),
            Err(PointError::NothingToCrawl)
        ));
        assert!(matches!(crawl_set(&store, vec![id]), Err(PointError::Disabled(i)) if i == id));
        assert!(matches!(
            crawl_set(&store, vec![7]),
            Err(PointError::NotFound(7))
        ));
        set_active(&store, id, true).unwrap();
        assert_eq!(crawl_set(&store, vec![id]).unwrap(), vec![id]);
    }
}
