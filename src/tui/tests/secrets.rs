//! The console never shows a crawl point's secrets: not its password (in
//! the list, in the edit form, nor as it is typed into a new one) and not
//! the value of a header it sends. The command line's side of the same
//! contract is tests/it/cli_secrets.rs.

use crossterm::event::KeyCode;

use super::{point, snapshot, Harness};
use crate::store::PointRecord;
use crate::tui::app::Msg;

const PASSWORD: &str = "pw-Zq81-console";
const TOKEN: &str = "tok-Hh27-console";

fn assert_hidden(screen: &str) {
    for secret in [PASSWORD, TOKEN] {
        assert!(!screen.contains(secret), "{secret} shown:\n{screen}");
    }
}

#[test]
fn the_point_list_and_form_never_show_a_password_or_header_value() {
    let mut h = Harness::new();
    let mut s = snapshot();
    s.points.push((
        2,
        PointRecord {
            user: Some("ann".into()),
            password: Some(PASSWORD.into()),
            headers: vec![("Authorization".into(), format!("Bearer {TOKEN}"))],
            ..point("/members/", true)
        },
    ));
    h.send(Msg::Snapshot(s));
    h.key(KeyCode::Char('6'));
    h.key(KeyCode::Down);
    assert_hidden(&h.screen(230, 40));
    h.key(KeyCode::Char('e'));
    let form = h.screen(120, 40);
    assert!(form.contains("Edit crawl point 2"), "{form}");
    assert!(form.contains("ann"), "the form holds the point:\n{form}");
    assert_hidden(&form);

    // A password typed into a new point's form is masked as it is typed.
    h.key(KeyCode::Esc);
    h.key(KeyCode::Char('a'));
    // Round back past the documents to the password.
    h.key(KeyCode::BackTab);
    h.key(KeyCode::BackTab);
    h.typing(PASSWORD);
    assert_hidden(&h.screen(120, 40));
}
