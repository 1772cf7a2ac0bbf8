//! Text the panes show for numbers, sizes, durations and dates. Pure
//! functions: the same value always prints the same, so snapshots are stable.

use std::time::Duration;

/// `1234567` -> `1,234,567`.
pub(crate) fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A count made short for a row short of room: `999`,
/// `4.5k`, `45k`, `1.2M`. Rounded down, so it never claims more than
/// there is.
pub(crate) fn compact(n: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1_000_000_000, "G"), (1_000_000, "M"), (1_000, "k")];
    let Some(&(size, unit)) = UNITS.iter().find(|&&(size, _)| n >= size) else {
        return n.to_string();
    };
    let whole = n / size;
    if whole < 10 {
        format!("{whole}.{}{unit}", n % size * 10 / size)
    } else {
        format!("{whole}{unit}")
    }
}

/// Bytes in the largest unit that keeps the number short: `512 B`, `12.3 KB`.
pub(crate) fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["KB", "MB", "GB", "TB", "PB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut v = n as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if v < 10.0 {
        format!("{v:.1} {}", UNITS[unit])
    } else {
        format!("{v:.0} {}", UNITS[unit])
    }
}

/// `hh:mm:ss` of a run's elapsed time.
pub(crate) fn clock(d: Duration) -> String {
    let s = d.as_secs();
    format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// A short duration for a fetch: `850ms`, `2.4s`, `1m05s`.
pub(crate) fn short(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        format!("{:.1}s", d.as_secs_f64())
    } else {
        let s = d.as_secs();
        format!("{}m{:02}s", s / 60, s % 60)
    }
}

/// `YYYY-MM-DD hh:mm` of unix seconds shifted by `offset` seconds (the
/// local zone's offset, fixed when the console starts).
pub(crate) fn date_time(unix: i64, offset: i64) -> String {
    let t = unix.saturating_add(offset);
    let (y, m, d) = crate::time::civil_from_days(t.div_euclid(86_400));
    let secs = t.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}",
        secs / 3600,
        secs / 60 % 60
    )
}

/// `hh:mm:ss` of the time of day of unix seconds shifted by `offset`.
pub(crate) fn time_of_day(unix: i64, offset: i64) -> String {
    let secs = unix.saturating_add(offset).rem_euclid(86_400);
    format!("{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60)
}

/// Cuts `s` to at most `max` characters, marking the cut with `…`.
pub(crate) fn ellipsize(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Fits `s` in `max` characters by whole words: as many as fit, then `…`
/// when any is left out, so a reason never ends in half a word (`too
/// many…`, never `too ma…`); only `…` when not even its first word fits.
pub(crate) fn words(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for word in s.split_whitespace() {
        let sep = usize::from(used > 0);
        let len = word.chars().count();
        // The ellipsis needs its own column.
        if used + sep + len + 1 > max {
            break;
        }
        if sep == 1 {
            out.push(' ');
        }
        out.push_str(word);
        used += sep + len;
    }
    if max > 0 {
        out.push('…');
    }
    out
}

/// A URL without its `http://` or `https://`, for columns where every
/// character counts.
pub(crate) fn bare_url(url: &str) -> &str {
    url.strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
        .unwrap_or(url)
}

/// Fits `s` in `max` characters by cutting its middle: the end of a URL
/// (the path) says more than the part after its origin.
pub(crate) fn squeeze(s: &str, max: usize) -> String {
    let len = s.chars().count();
    if len <= max {
        return s.to_string();
    }
    if max < 8 {
        return ellipsize(s, max);
    }
    let head = max / 3;
    let tail = max - head - 1;
    let mut out: String = s.chars().take(head).collect();
    out.push('…');
    out.extend(s.chars().skip(len - tail));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_kept_whole_or_left_out() {
        assert_eq!(words("redirect loop", 20), "redirect loop");
        assert_eq!(words("redirect loop: /a → /b", 16), "redirect loop:…");
        assert_eq!(words("Custom Broken Thing", 14), "Custom Broken…");
        assert_eq!(words("Custom Broken Thing", 13), "Custom…");
        assert_eq!(words("Custom Broken Thing", 6), "…");
        assert_eq!(words("Custom Broken Thing", 0), "");
    }

    #[test]
    fn counts_and_sizes_read_well() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1_234_567), "1,234,567");
        assert_eq!(compact(999), "999");
        assert_eq!(compact(4_567), "4.5k");
        assert_eq!(compact(45_678), "45k");
        assert_eq!(compact(1_234_567), "1.2M");
        assert_eq!(compact(u64::MAX), "18446744073G");
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(12_600), "12 KB");
        assert_eq!(bytes(5 << 20), "5.0 MB");
    }

    #[test]
    fn dates_are_civil() {
        assert_eq!(date_time(0, 0), "1970-01-01 00:00");
        assert_eq!(date_time(951_782_400, 0), "2000-02-29 00:00");
        assert_eq!(date_time(1_700_000_000, 3600), "2023-11-14 23:13");
        assert_eq!(time_of_day(1_700_000_000, 0), "22:13:20");
    }

    #[test]
    fn durations_are_short() {
        assert_eq!(clock(Duration::from_secs(83)), "00:01:23");
        assert_eq!(short(Duration::from_millis(45)), "45ms");
        assert_eq!(short(Duration::from_millis(2400)), "2.4s");
        assert_eq!(short(Duration::from_secs(65)), "1m05s");
        assert_eq!(ellipsize("abcdef", 4), "abc…");
        assert_eq!(ellipsize("abc", 4), "abc");
        assert_eq!(
            squeeze("http://example.com/a/b/c/d", 16),
            "http:…om/a/b/c/d"
        );
        assert_eq!(squeeze("http://x/", 16), "http://x/");
        assert_eq!(bare_url("https://x.org/a"), "x.org/a");
        assert_eq!(bare_url("ftp://x.org/a"), "ftp://x.org/a");
    }
}
