//! Pages and their URLs: the URL ↔ page id maps (origin + hash of path and
//! query, collisions resolved by comparing the full string), origins,
//! mimetypes, page records, meta tags, compressed bodies, HTTP heads, and
//! writing or removing a whole page in one transaction.

use std::borrow::Cow;

use url::Url;

use super::codec::{self, put_varint, u32_key};
use super::dictionary::{self, Kind as DictionaryKind};
use super::forward::Forward;
use super::inverted::{self, segments::SegmentRead};
use super::mimes;
use super::page_records::{self, Part};
use super::schema::{
    meta_keys, HttpHead, MimeId, MimeRecord, OriginId, OriginRecord, OutLink, PageId, PageRecord,
    Stream, UrlRecord, WordId, NORMS_PER_CHUNK,
};
use super::sealed::{self, View};
use super::terms::{Term, Terms};
use super::{bodies, record_blocks, url_records, Result, StoreError, Writer};
use crate::types::MetaTag;

/// Everything `put_page` writes for one fetched page.
#[derive(Debug, Clone, Default)]
pub struct PageWrite {
    pub record: PageRecord,
    /// The Content-Type as received (or empty).
    pub content_type: String,
    pub meta: Vec<MetaTag>,
    /// The body as [`super::compress_body`] returned it (empty: none kept).
    pub compressed_body: Vec<u8>,
    /// The body's terms; each votes for how its word is shown.
    pub terms: Terms,
    pub title_terms: Terms,
    /// The request and response heads (None: none kept).
    pub head: Option<HttpHead>,
    /// What the audit reports read of an HTML page (None: not HTML).
    pub audit: Option<super::PageAudit>,
    /// What the fetching point's own rules found (None: it has none).
    pub custom: Option<super::CustomFound>,
}

/// A record of `kind` that is either a zstd frame, a reference into a
/// repacked store's shared frames, or, where compressing did not make it
/// smaller (or it was written before its kind was compressed), its plain
/// encoding. The three never look alike: a plain page record starts with
/// its title's option tag (0 or 1), plain meta tags and heads with their
/// count, and zstd's magic number would be a count of 40 followed by a
/// string of over 6,000 bytes; for a reference see
/// [`super::body_blocks::Shelf::Records`].
fn decode_maybe_framed<T, V>(view: &V, kind: DictionaryKind, page: PageId, v: &[u8]) -> Result<T>
where
    T: serde::de::DeserializeOwned,
    V: View + ?Sized,
{
    codec::decode(&record_blocks::plain(view, kind, page, v)?)
}

fn url_hash_key(origin: OriginId, url: &Url) -> [u8; 12] {
    let tail = &url[url::Position::BeforePath..url::Position::AfterQuery];
    let mut k = [0u8; 12];
    k[..4].copy_from_slice(&origin.to_be_bytes());
    k[4..].copy_from_slice(&xxhash_rust::xxh3::xxh3_64(tail.as_bytes()).to_be_bytes());
    k
}

fn decode_ids(bytes: &[u8]) -> impl Iterator<Item = PageId> + '_ {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
}

/// Page and URL look-ups.
pub trait PageRead: View {
    fn origin_id(&self, origin: &str) -> Result<Option<OriginId>> {
        self.dbs()
            .origin_ids
            .get(self.txn(), origin.as_bytes())?
            .map(codec::read_u32)
            .transpose()
    }

    fn origin_record(&self, id: OriginId) -> Result<Option<OriginRecord>> {
        self.dbs()
            .origins
            .get(self.txn(), &u32_key(id))?
            .map(codec::decode)
            .transpose()
    }

    /// The www rule's store half: `url` on its host's `www.` twin when the
    /// twin's origin was seen first (a lower origin id), else `url`. The
    /// first-seen form of a site is its canonical form.
    fn on_first_seen_site<'u>(&self, url: &'u Url) -> Result<Cow<'u, Url>> {
        let Some(twin) = crate::url::on_www_twin(url) else {
            return Ok(Cow::Borrowed(url));
        };
        let Some(twin_id) = self.origin_id(&crate::url::origin(&twin))? else {
            return Ok(Cow::Borrowed(url));
        };
        Ok(match self.origin_id(&crate::url::origin(url))? {
            Some(own) if own < twin_id => Cow::Borrowed(url),
            _ => Cow::Owned(twin),
        })
    }

    /// The page id a user's URL names: the URL's own, else (www rule) the
    /// one of its first-seen `www.` twin, under which it was stored.
    fn site_page_id(&self, url: &Url) -> Result<Option<PageId>> {
        match self.page_id(url)? {
            Some(id) => Ok(Some(id)),
            None => self.page_id(&*self.on_first_seen_site(url)?),
        }
    }

    /// The page id of a URL, if the URL was ever seen (with or without
    /// `user:password@`: that is one URL).
    fn page_id(&self, url: &Url) -> Result<Option<PageId>> {
        let url = &*crate::url::without_userinfo(url);
        let Some(origin) = self.origin_id(&crate::url::origin(url))? else {
            return Ok(None);
        };
        let Some(ids) = self
            .dbs()
            .url_ids
            .get(self.txn(), &url_hash_key(origin, url))?
        else {
            return Ok(None);
        };
        for id in decode_ids(ids) {
            if self.url_of(id)?.as_deref() == Some(url.as_str()) {
                return Ok(Some(id));
            }
        }
        Ok(None)
    }

    fn url_of(&self, id: PageId) -> Result<Option<String>> {
        Ok(self.url_record(id)?.map(|r| r.url))
    }

    /// A URL in parts: origin id, path, query, user.
    fn url_record(&self, id: PageId) -> Result<Option<UrlRecord>> {
        self.dbs()
            .urls
            .get(self.txn(), &u32_key(id))?
            .map(|v| url_records::decode(v, |o| self.origin_record(o)))
            .transpose()
    }

    /// Every URL seen, in page id order; `f` returns false to stop.
    fn for_each_url(&self, mut f: impl FnMut(PageId, &str) -> Result<bool>) -> Result<()> {
        // A site or a few: each origin's record is read once.
        let mut origins: Vec<(OriginId, Option<OriginRecord>)> = Vec::new();
        for item in self.dbs().urls.iter(self.txn())? {
            let (k, v) = item?;
            let record = url_records::decode(v, |o| {
                if let Some((_, r)) = origins.iter().find(|(id, _)| *id == o) {
                    return Ok(r.clone());
                }
                let r = self.origin_record(o)?;
                origins.push((o, r.clone()));
                Ok(r)
            })?;
            if !f(codec::read_u32(k)?, &record.url)? {
                break;
            }
        }
        Ok(())
    }

    fn page(&self, id: PageId) -> Result<Option<PageRecord>> {
        self.dbs()
            .pages
            .get(self.txn(), &u32_key(id))?
            .map(|v| decode_maybe_framed(self, DictionaryKind::Record, id, v))
            .transpose()
    }

    fn meta_tags(&self, id: PageId) -> Result<Vec<MetaTag>> {
        let Some(part) = page_records::get(self, Part::Meta, id)? else {
            return Ok(Vec::new());
        };
        let (described, tags) = codec::split_meta_part(part)?;
        let mut tags: Vec<MetaTag> = decode_maybe_framed(self, DictionaryKind::Meta, id, tags)?;
        if let Some(i) = described {
            let corrupt = || StoreError::corrupt(format!("meta tags of page {id}"));
            let description = self.page(id)?.and_then(|r| r.description);
            tags.get_mut(i).ok_or_else(corrupt)?.content = description.ok_or_else(corrupt)?;
        }
        Ok(tags)
    }

    /// The HTTP request and response heads of the stored page, if kept.
    fn http_head(&self, id: PageId) -> Result<Option<HttpHead>> {
        let Some(v) = page_records::get(self, Part::Head, id)? else {
            return Ok(None);
        };
        decode_maybe_framed(self, DictionaryKind::Head, id, v).map(Some)
    }

    /// The raw body as fetched (decompressed), if one was kept.
    fn body(&self, id: PageId) -> Result<Option<Vec<u8>>> {
        let Some(v) = bodies::read(self, id)? else {
            return Ok(None);
        };
        match super::body_blocks::BlockRef::decode(&v, super::body_blocks::Shelf::Bodies)? {
            Some(r) => super::body_blocks::body(self, id, r).map(Some),
            None => dictionary::decompress(self, DictionaryKind::Body, id, &v).map(Some),
        }
    }

    fn mime(&self, id: MimeId) -> Result<Option<MimeRecord>> {
        self.dbs()
            .mimetypes
            .get(self.txn(), &u32_key(id))?
            .map(codec::decode)
            .transpose()
    }

    fn forward(&self, id: PageId) -> Result<Option<Forward>> {
        page_records::get(self, Part::Forward, id)?
            .map(Forward::decode)
            .transpose()
    }

    /// Every fetched page in id order; `f` returns false to stop.
    fn for_each_page(&self, mut f: impl FnMut(PageId, PageRecord) -> Result<bool>) -> Result<()> {
        for item in self.dbs().pages.iter(self.txn())? {
            let (k, v) = item?;
            let id = codec::read_u32(k)?;
            if !f(
                id,
                decode_maybe_framed(self, DictionaryKind::Record, id, v)?,
            )? {
                break;
            }
        }
        Ok(())
    }

    fn page_count(&self) -> Result<u64> {
        Ok(self.dbs().pages.len(self.txn())?)
    }

    fn url_count(&self) -> Result<u64> {
        Ok(self.dbs().urls.len(self.txn())?)
    }

    /// `1 / (max_tf × norm)` of each page of `pages` (ascending), 0 for a
    /// page without one: what ranking needs of a page, read a thousand
    /// pages at a time instead of one record per candidate.
    fn norm_factors(&self, pages: &[PageId]) -> Result<Vec<f32>> {
        let mut out = Vec::with_capacity(pages.len());
        let mut chunk: Option<(u32, Option<&[u8]>)> = None;
        for &p in pages {
            let c = p / NORMS_PER_CHUNK;
            if chunk.is_none_or(|(have, _)| have != c) {
                chunk = Some((c, self.dbs().norms.get(self.txn(), &u32_key(c))?));
            }
            let slot = (p % NORMS_PER_CHUNK) as usize * 4;
            let f = chunk
                .and_then(|(_, bytes)| bytes)
                .and_then(|b| b.get(slot..slot + 4))
                .map_or(0.0, |b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]));
            out.push(f);
        }
        Ok(out)
    }

    /// The zstd dictionaries the store holds: (kind, id, bytes).
    fn compression_dictionaries(&self) -> Result<Vec<(&'static str, u32, usize)>> {
        dictionary::held(self)
    }

    /// Bytes each table occupies (its B-tree and overflow pages), by name.
    fn table_sizes(&self) -> Result<Vec<(&'static str, u64)>> {
        let mut out = Vec::new();
        for (name, db) in self.dbs().named() {
            let st = db.stat(self.txn())?;
            let pages = st.branch_pages + st.leaf_pages + st.overflow_pages;
            out.push((name, pages as u64 * u64::from(st.page_size)));
        }
        Ok(out)
    }

    fn robots(&self, origin: OriginId) -> Result<Option<super::RobotsRecord>> {
        self.dbs()
            .robots
            .get(self.txn(), &u32_key(origin))?
            .map(codec::decode)
            .transpose()
    }
}

impl<T: View + ?Sized> PageRead for T {}

impl Writer<'_> {
    /// The id of an origin (`scheme://host:port`, as [`crate::url::origin`]
    /// writes it), creating its record on first sight.
    pub fn origin_id_for(&mut self, origin: &str) -> Result<OriginId> {
        if let Some(id) = self.origin_id(origin)? {
            return Ok(id);
        }
        let parsed = Url::parse(origin)
            .map_err(|e| StoreError::corrupt(format!("origin {origin:?}: {e}")))?;
        let id = self.next_id32(meta_keys::NEXT_ORIGIN)?;
        let record = OriginRecord {
            scheme: parsed.scheme().to_string(),
            host: parsed.host_str().unwrap_or("").to_string(),
            port: parsed.port_or_known_default().unwrap_or(0),
        };
        self.dbs
            .origin_ids
            .put(&mut self.txn, origin.as_bytes(), &id.to_be_bytes())?;
        self.dbs
            .origins
            .put(&mut self.txn, &u32_key(id), &codec::encode(&record)?)?;
        Ok(id)
    }

    /// The page id of a URL, creating the URL record on first sight.
    pub fn page_id_for(&mut self, url: &Url) -> Result<PageId> {
        self.page_id_as(url, None)
    }

    /// [`Writer::page_id_for`], recording `user` as the one the URL is
    /// fetched as (kept from its first sight with one).
    pub fn page_id_as(&mut self, url: &Url, user: Option<&str>) -> Result<PageId> {
        let url = &*crate::url::without_userinfo(url);
        // A user may have to be recorded: only a URL without one is
        // answered from the cache.
        let cached = user
            .is_none()
            .then(|| xxhash_rust::xxh3::xxh3_128(url.as_str().as_bytes()));
        if let Some(hash) = cached {
            let known = self.url_cache.get(&hash);
            if let Some(id) = known.or_else(|| self.pending.new_urls.get(&hash).copied()) {
                return Ok(id);
            }
        }
        let id = self.resolve_page_id(url, user)?;
        if let Some(hash) = cached {
            self.pending.new_urls.insert(hash, id);
        }
        Ok(id)
    }

    /// [`Writer::page_id_as`] from the store: the URL's id, or a new one.
    fn resolve_page_id(&mut self, url: &Url, user: Option<&str>) -> Result<PageId> {
        let origin = self.origin_id_for(&crate::url::origin(url))?;
        let key = url_hash_key(origin, url);
        let existing: Vec<PageId> = match self.dbs.url_ids.get(&self.txn, &key)? {
            Some(v) => decode_ids(v).collect(),
            None => Vec::new(),
        };
        for &id in &existing {
            let Some(mut record) = self.url_record(id)? else {
                continue;
            };
            if record.url == url.as_str() {
                if record.username.is_none() && user.is_some() {
                    record.username = user.map(str::to_string);
                    self.put_url_record(id, &record)?;
                }
                return Ok(id);
            }
        }
        // New URL (or a hash collision with a different one: append).
        let id = self.next_id32(meta_keys::NEXT_PAGE)?;
        let record = UrlRecord {
            origin,
            path: url.path().to_string(),
            query: url.query().map(str::to_string),
            username: user.map(str::to_string),
            url: url.as_str().to_string(),
        };
        self.put_url_record(id, &record)?;
        let mut ids = Vec::with_capacity((existing.len() + 1) * 4);
        for other in existing.iter().chain(std::iter::once(&id)) {
            ids.extend_from_slice(&other.to_be_bytes());
        }
        self.dbs.url_ids.put(&mut self.txn, &key, &ids)?;
        Ok(id)
    }

    fn put_url_record(&mut self, id: PageId, record: &UrlRecord) -> Result<()> {
        let origin = self.origin_record(record.origin)?.ok_or_else(|| {
            StoreError::corrupt(format!("origin {} has no record", record.origin))
        })?;
        let value = url_records::encode(record, Some(&origin))?;
        sealed::put_appending(&mut self.txn, self.dbs.urls, &u32_key(id), &value)
    }

    pub fn mime_id_for(&mut self, content_type: &str) -> Result<MimeId> {
        let rec = mimes::parse(content_type);
        let key = mimes::key(&rec);
        if let Some(v) = self.dbs.mime_ids.get(&self.txn, key.as_bytes())? {
            return codec::read_u32(v);
        }
        let id = self.next_id32(meta_keys::NEXT_MIME)?;
        self.dbs
            .mime_ids
            .put(&mut self.txn, key.as_bytes(), &id.to_be_bytes())?;
        self.dbs
            .mimetypes
            .put(&mut self.txn, &u32_key(id), &codec::encode(&rec)?)?;
        Ok(id)
    }

    /// [`PageRead::on_first_seen_site`], decided once per site (scheme,
    /// user, host and port) in a transaction: building each link's twin
    /// URL and looking up both origins was 3% of a crawl's CPU on a named
    /// host. A decision holds for the whole transaction: origins are only
    /// ever added, and one added later has the larger id, which does not
    /// change which form was seen first.
    pub fn on_first_seen_site_once<'u>(&mut self, url: &'u Url) -> Result<Cow<'u, Url>> {
        let site = &url[..url::Position::BeforePath];
        if let Some(decided) = self.pending.first_seen_sites.get(site) {
            let Some(host) = decided else {
                return Ok(Cow::Borrowed(url));
            };
            let mut twin = url.clone();
            // As `on_www_twin`: a host it cannot take leaves the URL as is
            // (it took this one on the site's first link).
            return Ok(match twin.set_host(Some(host)) {
                Ok(()) => Cow::Owned(twin),
                Err(_) => Cow::Borrowed(url),
            });
        }
        let decided = self.on_first_seen_site(url)?;
        let host = match &decided {
            Cow::Owned(twin) => twin.host_str().map(str::to_owned),
            Cow::Borrowed(_) => None,
        };
        self.pending.first_seen_sites.insert(site.to_owned(), host);
        Ok(decided)
    }

    /// Writes a fetched page: record, meta tags, body, forward index, body
    /// and title postings, document frequencies and its links (`children`,
    /// in page order), replacing any earlier version of the page in this
    /// same transaction.
    pub fn put_page(&mut self, id: PageId, page: &PageWrite, links: &[OutLink]) -> Result<()> {
        let old_segment = self.unindex_page(id)?;
        self.unlink_children(id, old_segment)?;
        self.drop_page_records(id)?;

        let mut record = page.record.clone();
        record.mime = self.mime_id_for(&page.content_type)?;

        let mut forward = Forward::default();
        // Sorted by word id as (id, index into `terms`): the terms
        // themselves are eight times larger to move.
        let terms: Vec<Term<'_>> = page.terms.iter().collect();
        let mut body_ids: Vec<(WordId, u32)> = Vec::with_capacity(terms.len());
        for (i, t) in terms.iter().enumerate() {
            body_ids.push((self.term_id(t)?, i as u32));
        }
        body_ids.sort_unstable_by_key(|&(w, _)| w);
        body_ids.dedup_by_key(|&mut (w, _)| w);
        let mut title_ids: Vec<(WordId, &[u32])> = Vec::with_capacity(page.title_terms.len());
        for t in page.title_terms.iter() {
            title_ids.push((self.term_id(&t)?, t.positions));
        }
        title_ids.sort_unstable_by_key(|&(w, _)| w);
        title_ids.dedup_by_key(|&mut (w, _)| w);

        forward.segment = self.segment()?;
        self.pending.segment_pages += 1;
        record.max_tf = 0;
        self.expect_hits();
        for &(w, i) in &body_ids {
            let term = &terms[i as usize];
            let tf = term.positions.len() as u32;
            record.max_tf = record.max_tf.max(tf);
            self.pending.hits.push(w, id, term);
            forward.terms.push((w, tf));
        }
        for &(w, positions) in &title_ids {
            self.pending
                .titles
                .entry(w)
                .or_default()
                .push(id, positions);
            forward.title.push(w);
            if body_ids.binary_search_by_key(&w, |&(b, _)| b).is_err() {
                self.add_doc_freq(w, 1);
            }
        }
        // Summed exactly in integers: a float sum in term id order would
        // round differently in a store whose ids differ (a merged one),
        // and the same page would rank otherwise there.
        let squares: u64 = forward
            .terms
            .iter()
            .map(|&(_, tf)| u64::from(tf).pow(2))
            .sum();
        record.norm = ((squares as f64).sqrt() / f64::from(record.max_tf.max(1))) as f32;
        self.set_norm_factor(id, norm_factor(record.max_tf, record.norm))?;
        let links = self.link_children(id, forward.segment, links)?;
        self.put_page_record(id, &record)?;
        let meta = match page.meta.is_empty() {
            true => Vec::new(),
            false => self.meta_part(&page.meta, record.description.as_deref())?,
        };
        let head = match &page.head {
            Some(head) => self.maybe_framed(DictionaryKind::Head, head)?,
            None => Vec::new(),
        };
        let parts = [
            &forward.encode()[..],
            links.as_deref().unwrap_or_default(),
            &meta,
            &head,
        ];
        self.put_page_records(id, parts)?;
        self.put_page_audit(id, page.audit.as_ref())?;
        self.put_page_custom(id, page.custom.as_ref())?;
        self.put_body(id, &page.compressed_body)
    }

    /// Replaces only the metadata of a stored page (a 304 refreshes nothing
    /// else).
    pub fn put_page_record(&mut self, id: PageId, record: &PageRecord) -> Result<()> {
        if let Some(old) = self.page(id)? {
            if old.title != record.title || old.content_hash != record.content_hash {
                self.write_out_history(id, &old)?;
            }
        }
        let value = self.maybe_framed(DictionaryKind::Record, record)?;
        self.dbs.pages.put(&mut self.txn, &u32_key(id), &value)?;
        Ok(())
    }

    /// A page's meta tags part ([`split_meta_part`]), the description
    /// left out where it is the page record's.
    fn meta_part(&mut self, tags: &[MetaTag], description: Option<&str>) -> Result<Vec<u8>> {
        let at = description.and_then(|d| {
            (tags.iter())
                .position(|m| m.attr == "name" && m.name == "description" && m.content == d)
        });
        let framed = match at {
            Some(i) => {
                let mut tags = tags.to_vec();
                tags[i].content.clear();
                self.maybe_framed(DictionaryKind::Meta, &tags)?
            }
            None => self.maybe_framed(DictionaryKind::Meta, &tags)?,
        };
        let mut out = Vec::with_capacity(framed.len() + 1);
        put_varint(&mut out, at.map_or(0, |i| i as u64 + 1));
        out.extend_from_slice(&framed);
        Ok(out)
    }

    /// `value` encoded as a zstd frame of `kind` (see
    /// [`decode_maybe_framed`]), or plain where the frame is no smaller
    /// (short records before the kind's dictionary is trained) or zstd
    /// could not be had.
    fn maybe_framed<T: serde::Serialize>(
        &mut self,
        kind: DictionaryKind,
        value: &T,
    ) -> Result<Vec<u8>> {
        let plain = codec::encode(value)?;
        let frame = self.dictionaries.compress(kind, &plain);
        if frame.is_empty() || frame.len() >= plain.len() {
            return Ok(plain);
        }
        self.keep_dictionary(kind, &frame)?;
        Ok(frame)
    }

    /// Removes a page's content from every table: record, body, meta tags,
    /// index entries and its outgoing links. The URL record stays (the URL
    /// was seen), and so do links from other pages to it.
    pub fn remove_page(&mut self, id: PageId) -> Result<()> {
        let segment = self.unindex_page(id)?;
        self.unlink_children(id, segment)?;
        self.drop_page_records(id)?;
        self.drop_page_text(id)?;
        self.drop_fragments(id)?;
        self.drop_kept()?;
        self.drop_page_audit(id)?;
        self.drop_page_custom(id)?;
        self.drop_resources(id)?;
        self.drop_page_render(id)?;
        self.set_norm_factor(id, 0.0)?;
        if let Some(old) = self.page(id)? {
            self.write_out_history(id, &old)?;
        }
        self.dbs.pages.delete(&mut self.txn, &u32_key(id))?;
        Ok(())
    }

    /// Removes a page's postings; returns the segment they were in (its
    /// reverse links are there too), None when it was not indexed.
    fn unindex_page(&mut self, id: PageId) -> Result<Option<u32>> {
        let Some(old) = self.forward(id)? else {
            return Ok(None);
        };
        let in_this_txn = self.pending.segment == Some(old.segment);
        let segment = if in_this_txn {
            old.segment
        } else {
            self.resolve_segment(old.segment)?
        };
        let twin = self.staged_twin(segment)?;
        if in_this_txn {
            self.pending.hits.drop_page(id);
        } else {
            for &(w, _) in &old.terms {
                self.remove_from_stream(Stream::Body, (segment, twin), w, id)?;
            }
        }
        for &w in &old.title {
            if in_this_txn {
                if let Some(t) = self.pending.titles.get_mut(&w) {
                    t.block = inverted::pending::pending_without_page(&t.block, id)?;
                }
            } else {
                self.remove_from_stream(Stream::Title, (segment, twin), w, id)?;
            }
        }
        self.segment_lost_page(segment, id)?;
        self.delete_body(id, old.segment)?;
        for w in old.all_words() {
            self.add_doc_freq(w, -1);
        }
        Ok(Some(segment))
    }

    /// Removes word `w`'s entry for `page` from `segment`'s part of
    /// `stream`, if it has one, and from `twin`, the large segment a
    /// staged merge is copying `segment` into (it may have copied the
    /// entry; [`staged_twin`](Self::staged_twin), looked up once a page
    /// by the caller: this runs once per word).
    pub(super) fn remove_from_stream(
        &mut self,
        stream: Stream,
        (segment, twin): (u32, Option<u32>),
        w: WordId,
        page: PageId,
    ) -> Result<()> {
        self.remove_entry(stream, segment, w, page)?;
        match twin {
            Some(into) => self.remove_entry(stream, into, w, page),
            None => Ok(()),
        }
    }

    fn remove_entry(
        &mut self,
        stream: Stream,
        segment: u32,
        w: WordId,
        page: PageId,
    ) -> Result<()> {
        let db = self.dbs.stream(stream, segment);
        let wanted = inverted::run::part_key(segment, w, page);
        let Some((k, part)) = self.record_holding(stream, &wanted)? else {
            return Ok(());
        };
        let holder = k.to_vec();
        let Some(rest) = inverted::merge::part_without(&holder, part, w, page)? else {
            return Ok(());
        };
        // What is left keeps its order: between the part before and the
        // one after, possibly under a later first (word, page).
        db.delete(&mut self.txn, &holder)?;
        for (k, part) in rest {
            db.put(&mut self.txn, &k, &part)?;
        }
        Ok(())
    }

    fn set_norm_factor(&mut self, page: PageId, factor: f32) -> Result<()> {
        let c = page / NORMS_PER_CHUNK;
        if !self.pending.norms.contains_key(&c) {
            let mut values = vec![0f32; NORMS_PER_CHUNK as usize];
            if let Some(bytes) = self.dbs.norms.get(&self.txn, &u32_key(c))? {
                for (v, b) in values.iter_mut().zip(bytes.chunks_exact(4)) {
                    *v = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                }
            }
            self.pending.norms.insert(c, values);
        }
        if let Some(values) = self.pending.norms.get_mut(&c) {
            values[(page % NORMS_PER_CHUNK) as usize] = factor;
        }
        Ok(())
    }

    pub fn put_robots(&mut self, origin: OriginId, rec: &super::RobotsRecord) -> Result<()> {
        self.dbs
            .robots
            .put(&mut self.txn, &u32_key(origin), &codec::encode(rec)?)?;
        Ok(())
    }
}

/// The URL of a `urls` record (origin id ‖ URL).
/// What ranking divides a page's tf sum by: `max_tf × norm`, inverted.
pub fn norm_factor(max_tf: u32, norm: f32) -> f32 {
    let d = max_tf.max(1) as f32 * norm;
    if d > 0.0 {
        1.0 / d
    } else {
        0.0
    }
}

#[cfg(test)]
pub(crate) fn force_collision(w: &mut Writer<'_>, url: &Url, id: PageId) -> Result<()> {
    let origin = w.origin_id_for(&crate::url::origin(url))?;
    w.dbs
        .url_ids
        .put(&mut w.txn, &url_hash_key(origin, url), &id.to_be_bytes())?;
    Ok(())
}
