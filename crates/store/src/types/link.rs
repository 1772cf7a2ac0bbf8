//! Where a link sits on its page, as the store keeps it: the element it
//! is written in and the part of the page around it, each a one-byte code.

/// The element a link is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LinkElement {
    #[default]
    A,
    Area,
    Frame,
    Iframe,
}

impl LinkElement {
    const ALL: [LinkElement; 4] = [Self::A, Self::Area, Self::Frame, Self::Iframe];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::A => "a",
            Self::Area => "area",
            Self::Frame => "frame",
            Self::Iframe => "iframe",
        }
    }

    /// Its one-byte code in the store, and back.
    pub fn code(self) -> u8 {
        self as u8
    }

    pub fn from_code(code: u8) -> Option<Self> {
        Self::ALL.get(usize::from(code)).copied()
    }
}

/// Where on the page a link is (Screaming Frog's link position): the
/// nearest enclosing `nav`, `header`, `footer` or `aside`, or element with
/// the ARIA role they imply; `content` when there is none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Position {
    #[default]
    Content,
    Nav,
    Header,
    Footer,
    Aside,
}

impl Position {
    const ALL: [Position; 5] = [
        Self::Content,
        Self::Nav,
        Self::Header,
        Self::Footer,
        Self::Aside,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Content => "content",
            Self::Nav => "nav",
            Self::Header => "header",
            Self::Footer => "footer",
            Self::Aside => "aside",
        }
    }

    /// Its one-byte code in the store, and back.
    pub fn code(self) -> u8 {
        self as u8
    }

    pub fn from_code(code: u8) -> Option<Self> {
        Self::ALL.get(usize::from(code)).copied()
    }
}
