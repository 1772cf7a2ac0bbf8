//! `check` of the resource tables: each record decodes, and every
//! resource a page loads has a URL record (its target id is one).

use crate::codec::{self, read_u32, u32_key};
use crate::sealed::View;
use crate::{ResourceCheck, ResourceLink, Result};

use super::Problems;

pub(super) fn check_resources<V: View + ?Sized>(v: &V, p: &mut Problems) -> Result<()> {
    let d = v.dbs();
    let t = v.txn();
    for item in d.page_resources.iter(t)? {
        let (k, value) = item?;
        let page = read_u32(k)?;
        let Ok(links) = codec::decode::<Vec<ResourceLink>>(value) else {
            p.add(format!("page {page}: resource links do not decode"));
            continue;
        };
        for l in links {
            if d.urls.get(t, &u32_key(l.target))?.is_none() {
                p.add(format!(
                    "page {page}: loads page {}, which has no URL",
                    l.target
                ));
            }
        }
    }
    for item in d.resource_checks.iter(t)? {
        let (k, value) = item?;
        if codec::decode::<ResourceCheck>(value).is_err() {
            p.add(format!(
                "page {}: resource check does not decode",
                read_u32(k)?
            ));
        }
    }
    Ok(())
}
