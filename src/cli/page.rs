//! `page URL`: everything the store knows of one URL — its crawl state,
//! record (a cut body marked so), what an external check found, top
//! keywords, meta tags, parents and children (the object is
//! `crate::export::page`'s; this face prints it).

use super::{print_json, CliError, CliResult};
use crate::export::page::{keyword_line, page_json, PageJson};
use crate::report::links::latest_link_scores;
use crate::store::prelude::*;
use crate::store::Store;
use crate::url::Url;

fn or_dash<T: ToString>(v: &Option<T>) -> String {
    v.as_ref().map_or_else(|| "-".to_string(), T::to_string)
}

pub fn run(store: &Store, url: &Url, keywords: usize, parents: usize, json: bool) -> CliResult {
    let p = load(store, url, keywords, parents)?;
    if json {
        return print_json(&p);
    }
    state_lines(&p)?;
    record_lines(&p)?;
    audit_lines(&p)?;
    outln!("keywords       {}", keyword_line(&p.keywords));
    for m in &p.meta {
        outln!("meta           {} {}: {}", m.attr, m.name, m.content);
    }
    link_lines(&p)
}

/// The page's object, with the link score and documents the store's kept
/// figures and document list add to it.
fn load(store: &Store, url: &Url, keywords: usize, parents: usize) -> Result<PageJson, CliError> {
    crate::report::kept::ensure(store);
    let r = store.read()?;
    let Some(id) = r.site_page_id(url)? else {
        return Err(CliError::NoSuchPage(
            crate::url::redact(url.as_str()).into(),
        ));
    };
    // The stored form: without any user:password@ that was typed.
    let shown = r.url_of(id)?.unwrap_or_default();
    let inlinks = crate::export::inlinks::Inlinks::read(&r)?;
    let depths = crate::report::link_depth::LinkDepths::latest(&r)?;
    let mut p = page_json(&r, id, shown, keywords, parents, &inlinks, &depths)?;
    p.link_score = match crate::report::links::kept_link_score(&r, id)? {
        Some(kept) => kept,
        None => latest_link_scores(&r)?.get(&id).copied(),
    };
    p.docs = crate::documents::Membership::new(&r)?.of(&p.url);
    Ok(p)
}

/// Which URL this is and where it stands: crawl state, redirect, external
/// check, documents.
fn state_lines(p: &PageJson) -> CliResult {
    outln!("id             {}", p.id);
    outln!("url            {}", p.url);
    if let Some(parts) = &p.parts {
        outln!("parts          {}", parts.line());
    }
    outln!("state          {}", p.state);
    if let Some(reason) = &p.reason {
        outln!("reason         {reason}");
    }
    if let (Some(to), Some(status)) = (&p.redirect_to, p.redirect_status) {
        outln!(
            "redirect to    {to}  ({})",
            crate::crawl::status_text(status)
        );
    }
    if let Some(check) = &p.external_check {
        let said = match (&check.reason, check.status) {
            (Some(reason), Some(status)) => format!("{status} {reason}"),
            (Some(reason), None) => reason.clone(),
            (None, Some(status)) => format!("works ({status})"),
            (None, None) => "works".into(),
        };
        outln!("external check {said}  (checked {})", check.checked_at);
    }
    if !p.docs.is_empty() {
        outln!("documents      {}", p.docs.join(", "));
    }
    Ok(())
}

/// What the fetch recorded and the page's text says of itself.
fn record_lines(p: &PageJson) -> CliResult {
    outln!("title          {}", or_dash(&p.title));
    outln!("status         {}", or_dash(&p.status));
    outln!("mime           {}", or_dash(&p.mime));
    outln!("size           {}", size_text(p));
    let source = match p.last_modified_source {
        Some("header") => "",
        Some("date") => "  (no Last-Modified: the server's Date)",
        Some(_) => "  (no Last-Modified: the fetch time)",
        None => "",
    };
    outln!("last modified  {}{source}", or_dash(&p.last_modified));
    outln!("fetched at     {}", or_dash(&p.fetched_at));
    outln!("depth          {}", or_dash(&p.depth));
    outln!("found in       {}", p.found_in.join(", "));
    if let Some(ms) = p.response_ms {
        outln!("response       {ms} ms");
    }
    if let Some(n) = p.word_count {
        outln!("words          {n}");
    }
    if let Some(why) = &p.text_error {
        outln!("text error     {why}");
    }
    if let Some(d) = &p.description {
        outln!("description    {d}");
    }
    for h in &p.h1 {
        outln!("h1             {h}");
    }
    if let Some(c) = &p.canonical {
        outln!("canonical      {c}");
    }
    for (what, source) in [("noindex", p.noindex), ("nofollow", p.nofollow)] {
        if let Some(source) = source {
            outln!("directive      {what} (from the {source})");
        }
    }
    Ok(())
}

/// Who links here and what the page links to and loads.
fn link_lines(p: &PageJson) -> CliResult {
    outln!("parents ({})", p.parent_count);
    for u in &p.parents {
        outln!("  {u}");
    }
    if p.parents.len() < p.parent_count {
        outln!(
            "  … and {} more (--parents 0 lists all)",
            p.parent_count - p.parents.len()
        );
    }
    if let Some(sitemap) = &p.from_sitemap {
        outln!("  from sitemap {sitemap}");
    }
    if p.self_links > 0 {
        outln!("self links     {}", p.self_links);
    }
    outln!("children ({})", p.children.len());
    outln!("links ({})", p.links.len());
    for l in &p.links {
        let mark = if l.nofollow { "  [nofollow]" } else { "" };
        let fragment = l
            .fragment
            .as_ref()
            .map_or(String::new(), |f| format!("#{f}"));
        let place = format!("{} in {}", l.element, l.position);
        if l.anchor.is_empty() {
            outln!("  {}{fragment}  ({place}){mark}", l.url);
        } else {
            outln!("  {}{fragment}  \"{}\"  ({place}){mark}", l.url, l.anchor);
        }
    }
    if !p.resources.is_empty() {
        outln!("resources ({})", p.resources.len());
    }
    for res in &p.resources {
        let status = res.status.map_or("-".into(), |s| s.to_string());
        outln!("  {}  {}  {status}", res.url, res.element);
    }
    Ok(())
}

/// Indexability, link score and the widths search results draw.
fn audit_lines(p: &PageJson) -> CliResult {
    if let Some(i) = p.indexability {
        outln!("indexability   {i}");
    }
    if let Some(score) = p.link_score {
        outln!("link score     {score}");
    }
    for (what, px) in [("title", p.title_px), ("description", p.description_px)] {
        if let Some(px) = px {
            outln!("{:<15}{px} px in search results", format!("{what} width"));
        }
    }
    Ok(())
}

/// "N bytes", and for a cut body where it was cut and what was announced.
fn size_text(p: &PageJson) -> String {
    let Some(size) = p.size else {
        return "-".into();
    };
    if p.truncated != Some(true) {
        return format!("{size} bytes");
    }
    match p.full_size {
        Some(full) => format!("{size} bytes (cut at --max-body-bytes; {full} announced)"),
        None => format!("{size} bytes (cut at --max-body-bytes)"),
    }
}
