const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text made safe for HTML element content and quoted attribute values: the hosted pages, the e-mails, their pages. */
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => ESCAPES[ch] as string);

/**
 * CSS without what only its source needs: comments, indentation, spaces around punctuation, leading zeros. The
 * element's build runs it on its styles, and the page renderer on the styles it inlines.
 */
export function minifyCss(css: string): string {
  return css
    .replace(/\/\*[^*]*\*+(?:[^/*][^*]*\*+)*\//g, "")
    .replace(/\s+/g, " ")
    .replace(/ ?([{};,>/]) ?/g, "$1")
    .replace(/: /g, ":")
    .replace(/;}/g, "}")
    .replace(/([^\w.-])0\./g, "$1.")
    .replace(/="([\w-]+)"\]/g, "=$1]")
    .trim();
}
