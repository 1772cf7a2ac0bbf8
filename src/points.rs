//! Crawl points: the one home of every rule about them. What a valid point
//! is (an http(s) start URL, a root prefix with a scheme, a page limit of at
//! least one, a user and password together, one point per start URL), and
//! the operations both faces offer: add, save a whole edited record, update,
//! enable/disable, delete, and the active set a crawl starts from; the
//! settings' parsers (`--resolve`, `--append-query`), credentials typed in
//! the start URL, and marking a point whose scope changed for re-scoping.
//! The CLI,
//! clap's value parsers and the console's form all call this module, so they
//! accept and refuse the same settings.

use crate::store::prelude::*;
use crate::store::{PointId, PointRecord, Resolve, Store, StoreError, Writer};
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
    DocName(crate::documents::DocError),
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

/// A root prefix as typed: it must name its scheme, or it would match no
/// normalised URL and the point would silently crawl nothing.
pub fn parse_root(input: &str) -> Result<String> {
    let root = input.trim();
    if !["http://", "https://", "file://"]
        .iter()
        .any(|scheme| root.starts_with(scheme))
    {
        return Err(PointError::BadRoot);
    }
    // Stored URLs never hold user information, so such a prefix would
    // match nothing, and it would print a password.
    if has_userinfo(root) {
        return Err(PointError::RootWithCredentials);
    }
    Ok(root.to_string())
}

/// An exclude prefix as typed: any string (one without a scheme matches
/// nothing), but never one holding `user:password@`.
pub fn parse_exclude(input: &str) -> Result<String> {
    if has_userinfo(input) {
        return Err(PointError::RootWithCredentials);
    }
    Ok(input.to_string())
}

fn has_userinfo(prefix: &str) -> bool {
    let authority = prefix.split_once("://").map_or("", |(_, rest)| rest);
    let end = authority.find(['/', '?', '#']).unwrap_or(authority.len());
    authority[..end].contains('@')
}

/// A `--resolve HOST:PORT:ADDR` as curl takes it (an IPv6 ADDR in
/// brackets): connect to ADDR for HOST:PORT.
pub fn parse_resolve(input: &str) -> Result<Resolve> {
    let bad = |why: &str| PointError::BadResolve(format!("{input:?}: {why}"));
    let (host, rest) = input
        .trim()
        .split_once(':')
        .ok_or_else(|| bad("expected HOST:PORT:ADDR"))?;
    let (port, addr) = rest
        .split_once(':')
        .ok_or_else(|| bad("expected HOST:PORT:ADDR"))?;
    let host = host.to_ascii_lowercase();
    let named = crate::url::Url::parse(&format!("http://{host}/"))
        .ok()
        .and_then(|u| u.host_str().map(str::to_string));
    if host.is_empty() || named.as_deref() != Some(host.as_str()) {
        return Err(bad(&format!("{host:?} is not a host name")));
    }
    let port = match port.parse::<u16>() {
        Ok(p) if p > 0 => p,
        _ => return Err(bad(&format!("{port:?} is not a port (1-65535)"))),
    };
    let bare = addr
        .strip_prefix('[')
        .and_then(|a| a.strip_suffix(']'))
        .unwrap_or(addr);
    let addr = match bare.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V6(_)) if bare == addr => {
            return Err(bad("an IPv6 ADDR goes in brackets, [::1]"))
        }
        Ok(a) => a,
        Err(_) => {
            return Err(bad(&format!(
                "{addr:?} is not an IP address (one address; a host name is not resolved)"
            )))
        }
    };
    Ok(Resolve { host, port, addr })
}

/// An `--append-query K=V`: a query parameter added to every request.
pub fn parse_append_query(input: &str) -> Result<(String, String)> {
    match input.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
        Some(_) => Err(PointError::BadAppendQuery(format!(
            "{input:?}: the key before = is empty"
        ))),
        None => Err(PointError::BadAppendQuery(format!(
            "{input:?} is not of the form KEY=VALUE"
        ))),
    }
}

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

/// Whether the next crawl must re-scope what the point already knows.
fn scope_changed(old: &PointRecord, new: &PointRecord) -> bool {
    old.root != new.root
        || old.excludes != new.excludes
        || old.depth != new.depth
        || old.distinct_www != new.distinct_www
        || old.docs != new.docs
        || old.exclude_regex != new.exclude_regex
        || old.include != new.include
}

/// A page limit as typed: a limit of zero would fetch nothing.
pub fn parse_max_pages(input: &str) -> Result<u64> {
    let value = input.trim();
    match value.parse::<u64>() {
        Ok(0) => Err(PointError::ZeroMaxPages),
        Ok(n) => Ok(n),
        Err(_) => Err(PointError::NotANumber {
            setting: Setting::MaxPages,
            value: value.to_string(),
        }),
    }
}

/// A point's documents as typed in one box, comma-separated; each must be
/// one of `known` (a point's own, deleted or not, and the live ones).
pub fn parse_docs(input: &str, known: &[String]) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for typed in input.split(',').filter(|s| !s.trim().is_empty()) {
        let name = crate::documents::parse_name(typed).map_err(PointError::DocName)?;
        if !known.contains(&name) {
            return Err(PointError::NoDocument(name));
        }
        out.push(name);
    }
    Ok(out)
}

/// A depth limit as typed.
pub fn parse_depth(input: &str) -> Result<u32> {
    let value = input.trim();
    value.parse::<u32>().map_err(|_| PointError::NotANumber {
        setting: Setting::Depth,
        value: value.to_string(),
    })
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

/// The points that are not deleted.
fn live(w: &impl PointRead) -> Result<Vec<(PointId, PointRecord)>> {
    Ok(w.points()?
        .into_iter()
        .filter(|(_, p)| !p.deleted)
        .collect())
}

/// Checks `rec` on its own and against the live points, and stamps it as
/// changed now by the OS user.
fn checked(
    w: &(impl PointRead + DocumentRead),
    id: Option<PointId>,
    rec: PointRecord,
) -> Result<PointRecord> {
    let mut rec = validate(rec)?;
    unique_in(&live(w)?, id, &rec.url)?;
    let old = id.map(|id| w.point(id)).transpose()?.flatten();
    // A point joins documents that exist and are not deleted (their
    // excludes then apply); one it was in already it may keep.
    for doc in &rec.docs {
        if old.as_ref().is_some_and(|o| o.docs.contains(doc)) {
            continue;
        }
        match w.document(doc)? {
            None => return Err(PointError::NoDocument(doc.clone())),
            Some(d) if d.deleted => return Err(PointError::DeletedDocument(doc.clone())),
            Some(_) => {}
        }
    }
    if let Some(old) = old {
        rec.dirty |= scope_changed(&old, &rec);
    }
    stamp(&mut rec);
    Ok(rec)
}

/// Records who changed a point and when (the crawl design's metacolumns).
fn stamp(rec: &mut PointRecord) {
    let now = crate::time::unix_now();
    if rec.created_at == 0 {
        rec.created_at = now;
    }
    rec.updated_at = now;
    rec.updated_by = ["USER", "LOGNAME", "USERNAME"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|u| !u.is_empty()))
        // SAFETY: getuid cannot fail and touches no memory of ours.
        .unwrap_or_else(|| format!("uid {}", unsafe { libc::getuid() }));
}

/// A layer's error: the store's own (which aborts the transaction) or a
/// refusal of the layer's rules (which the caller gets back as it is).
pub(crate) trait Refusal: From<StoreError> {
    /// The store's error, when that is what this is; else the refusal.
    fn into_store(self) -> std::result::Result<StoreError, Self>;
}

impl Refusal for PointError {
    fn into_store(self) -> std::result::Result<StoreError, Self> {
        match self {
            PointError::Store(e) => Ok(e),
            e => Err(e),
        }
    }
}

/// Runs `f` in one write transaction, keeping its own error type.
pub(crate) fn write<T, E: Refusal>(
    store: &Store,
    f: impl FnMut(&mut Writer<'_>) -> std::result::Result<T, E>,
) -> std::result::Result<T, E> {
    let mut f = f;
    let mut outcome = None;
    let stored = store.update(|w| match f(w).map_err(Refusal::into_store) {
        Ok(v) => Ok(Some(v)),
        Err(Ok(e)) => Err(e),
        Err(Err(e)) => {
            outcome = Some(e);
            Ok(None)
        }
    })?;
    match (stored, outcome) {
        (Some(v), _) => Ok(v),
        (None, Some(e)) => Err(e),
        (None, None) => Err(StoreError::corrupt("a write ended without an outcome").into()),
    }
}

/// Adds a new point; refuses a start URL that another point has. Returns
/// its id and the record as stored (normalised).
pub fn add(store: &Store, rec: PointRecord) -> Result<(PointId, PointRecord)> {
    write(store, |w| {
        let rec = checked(w, None, rec.clone())?;
        Ok((w.add_point(&rec)?, rec))
    })
}

/// Stores a whole record: a new point when `id` is `None`, else replaces
/// point `id` (which must exist).
pub fn save(store: &Store, id: Option<PointId>, rec: PointRecord) -> Result<PointId> {
    write(store, |w| {
        let rec = checked(w, id, rec.clone())?;
        match id {
            Some(id) => {
                if w.point(id)?.is_none() {
                    return Err(PointError::NotFound(id));
                }
                w.put_point(id, &rec)?;
                Ok(id)
            }
            None => Ok(w.add_point(&rec)?),
        }
    })
}

/// Changes point `id` with `edit`; the result must still be a valid point.
pub fn update(store: &Store, id: PointId, edit: impl Fn(&mut PointRecord)) -> Result<PointRecord> {
    write(store, |w| {
        let mut rec = w.point(id)?.ok_or(PointError::NotFound(id))?;
        edit(&mut rec);
        let rec = checked(w, Some(id), rec)?;
        w.put_point(id, &rec)?;
        Ok(rec)
    })
}

/// The point whose start URL is `url`, created with `edit` applied or
/// updated with it, and made active: what `crawl URL` does.
pub fn upsert(
    store: &Store,
    url: &crate::url::Url,
    edit: impl Fn(&mut PointRecord),
) -> Result<PointId> {
    write(store, |w| {
        let bare = crate::url::without_userinfo(url);
        let found = live(w)?.into_iter().find(|(_, p)| p.url == bare.as_str());
        let (id, mut rec) = match found {
            Some((id, rec)) => (Some(id), rec),
            None => (None, new_record(url)),
        };
        edit(&mut rec);
        rec.active = true;
        let rec = checked(w, id, rec)?;
        match id {
            Some(id) => {
                w.put_point(id, &rec)?;
                Ok(id)
            }
            None => Ok(w.add_point(&rec)?),
        }
    })
}

pub fn set_active(store: &Store, id: PointId, active: bool) -> Result<PointRecord> {
    update(store, id, |r| r.active = active)
}

/// Soft-deletes point `id` (restorable, never crawled) and drops its
/// queued URLs.
pub fn remove(store: &Store, id: PointId) -> Result<()> {
    write(store, |w| {
        let mut rec = w
            .point(id)?
            .filter(|p| !p.deleted)
            .ok_or(PointError::NotFound(id))?;
        rec.deleted = true;
        stamp(&mut rec);
        w.put_point(id, &rec)?;
        w.drop_queued(id)?;
        Ok(())
    })
}

/// Removes point `id` for good, deleted or not.
pub fn purge(store: &Store, id: PointId) -> Result<()> {
    write(store, |w| {
        if w.point(id)?.is_none() {
            return Err(PointError::NotFound(id));
        }
        Ok(w.remove_point(id)?)
    })
}

/// Brings a soft-deleted point back (its start URL must still be free).
pub fn restore(store: &Store, id: PointId) -> Result<PointRecord> {
    write(store, |w| {
        let mut rec = w.point(id)?.ok_or(PointError::NotFound(id))?;
        if !rec.deleted {
            return Err(PointError::NotDeleted(id));
        }
        rec.deleted = false;
        let rec = checked(w, Some(id), rec)?;
        w.put_point(id, &rec)?;
        Ok(rec)
    })
}

/// The points that are not deleted.
pub fn list(store: &Store) -> Result<Vec<(PointId, PointRecord)>> {
    live(&store.read()?)
}

/// The soft-deleted points.
pub fn list_deleted(store: &Store) -> Result<Vec<(PointId, PointRecord)>> {
    Ok(store
        .read()?
        .points()?
        .into_iter()
        .filter(|(_, p)| p.deleted)
        .collect())
}

/// The points a crawl starts from: `requested` when given (each must exist
/// and be enabled), else every active point; never an empty set.
pub fn crawl_set(store: &Store, requested: Vec<PointId>) -> Result<Vec<PointId>> {
    let stored = store.read()?.points()?;
    let ids: Vec<PointId> = if requested.is_empty() {
        stored
            .into_iter()
            .filter(|(_, p)| p.active && !p.deleted)
            .map(|(id, _)| id)
            .collect()
    } else {
        for &id in &requested {
            match stored.iter().find(|(i, _)| *i == id) {
                None => return Err(PointError::NotFound(id)),
                Some((_, p)) if p.deleted => return Err(PointError::Deleted(id)),
                Some((_, p)) if !p.active => return Err(PointError::Disabled(id)),
                Some(_) => {}
            }
        }
        requested
    };
    if ids.is_empty() {
        return Err(PointError::NothingToCrawl);
    }
    Ok(ids)
}

#[cfg(test)]
mod tests {
    //! Both faces against one table: the CLI (clap's parsers, then the
    //! command on a real store) and the console's form must accept and
    //! refuse the same settings, and store the same record.

    use clap::Parser;

    use super::*;
    use crate::cli::Cli;
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
