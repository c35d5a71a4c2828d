//! Lesson Markdown as HTML, sanitized: a lesson may come from anywhere (a fork, a course author's
//! pull request), so raw HTML is shown as text, and links and images keep only http(s), mailto
//! (links) and relative URLs; any other scheme (`javascript:`, `data:`, `vbscript:` ...) becomes `#`.

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag};

pub fn to_html(md: &str) -> String {
    let parser = Parser::new_ext(md, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH);
    fn safe(url: CowStr<'_>, mailto: bool) -> CowStr<'_> {
        if url_allowed(&url, mailto) { url } else { CowStr::Borrowed("#") }
    }
    let events = parser.map(|ev| match ev {
        Event::Html(h) | Event::InlineHtml(h) => Event::Text(h),
        Event::Start(Tag::Link { link_type, dest_url, title, id }) => {
            Event::Start(Tag::Link { link_type, dest_url: safe(dest_url, true), title, id })
        }
        Event::Start(Tag::Image { link_type, dest_url, title, id }) => {
            Event::Start(Tag::Image { link_type, dest_url: safe(dest_url, false), title, id })
        }
        other => other,
    });
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, events);
    html
}

/// True for a relative URL or one whose scheme is http, https (or mailto when `mailto`). The
/// scheme is read as a browser reads it: ASCII tabs, newlines and controls removed, any case.
fn url_allowed(url: &str, mailto: bool) -> bool {
    let cleaned: String = url.chars().filter(|c| !c.is_ascii_control() && *c != ' ').collect();
    let scheme_end = cleaned.find(|c: char| matches!(c, ':' | '/' | '?' | '#'));
    match scheme_end {
        Some(i) if cleaned[i..].starts_with(':') => {
            let scheme = cleaned[..i].to_ascii_lowercase();
            scheme == "http" || scheme == "https" || (mailto && scheme == "mailto")
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::to_html as markdown;

    #[test]
    fn raw_html_is_shown_as_text() {
        let html = markdown("Hi <img src=x onerror=alert(1)> there\n\n<script>alert(2)</script>\n\n<div onclick=\"x()\">d</div>");
        assert!(!html.contains("<img"), "{html}");
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<div"), "{html}");
        assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"), "{html}");
        assert!(html.contains("&lt;script&gt;alert(2)&lt;/script&gt;"), "{html}");
    }

    #[test]
    fn only_safe_link_schemes_survive() {
        let cases = [
            ("[a](javascript:alert(1))", "href=\"#\""),
            ("[a](JaVaScRiPt:alert(1))", "href=\"#\""),
            ("[a](java&#9;script:alert(1))", "href=\"#\""),
            ("<javascript:alert(1)>", "href=\"#\""),
            ("[a](data:text/html;base64,PHNjcmlwdD4=)", "href=\"#\""),
            ("[a](vbscript:x)", "href=\"#\""),
            ("![i](javascript:alert(1))", "src=\"#\""),
            ("![i](mailto:x@y.z)", "src=\"#\""),
            ("[a](https://www.mongodb.com/docs/)", "href=\"https://www.mongodb.com/docs/\""),
            ("[a](http://x.org/a:b)", "href=\"http://x.org/a:b\""),
            ("[a](mailto:me@example.com)", "href=\"mailto:me@example.com\""),
            ("[a](lessons.html#tree)", "href=\"lessons.html#tree\""),
            ("[a](../x/y?q=a:b)", "href=\"../x/y?q=a:b\""),
        ];
        for (md, needle) in cases {
            let html = markdown(md);
            assert!(html.contains(needle), "{md}: {html}");
            let lower = html.to_ascii_lowercase();
            assert!(!lower.contains("=\"java") && !lower.contains("=\"data") && !lower.contains("=\"vbs"), "{md}: {html}");
        }
    }

    #[test]
    fn lesson_markdown_still_renders() {
        let html = markdown("**bold** `code` and a [link](https://x.org)\n\n| a | b |\n|---|---|\n| 1 | 2 |");
        assert!(html.contains("<strong>bold</strong>"), "{html}");
        assert!(html.contains("<code>code</code>"), "{html}");
        assert!(html.contains("<table>"), "{html}");
    }
}
