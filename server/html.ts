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

/**
 * A plain page of the server's own (the pages e-mails link to, the subscription form): no script, the system's
 * colours in light and dark, `accent` on buttons and links when it is a hex colour.
 */
export function plainPage(title: string, body: string, accent = "#2563eb"): string {
  const color = /^#[\da-f]{6}$/i.test(accent) ? accent : "#2563eb";
  // Text on the accent: black on a light one, else white (the perceived lightness, as the element decides it).
  const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(color.slice(i, i + 2), 16));
  const onColor = (r as number) * 0.3 + (g as number) * 0.59 + (b as number) * 0.11 > 150 ? "#000" : "#fff";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>
<style>:root{color-scheme:light dark}body{margin:0;font:16px/1.5 system-ui,sans-serif;background:Canvas;color:CanvasText}main{max-width:32rem;margin:0 auto;padding:2rem 1rem}h1{font-size:1.5rem;line-height:1.25;margin:0 0 1rem;text-wrap:balance}h2{font-size:1.125rem;margin:2rem 0 .75rem}a{color:light-dark(#0b57d0,#8ab4f8)}label{display:block;margin:0 0 .25rem;font-weight:600}fieldset label{font-weight:400;padding:.25rem 0}input[type=email],input[type=password],input[type=url],select{box-sizing:border-box;width:100%;font:inherit;padding:.5rem .75rem;border:1px solid GrayText;border-radius:6px;background:Field;color:FieldText;margin:0 0 1rem}fieldset{border:1px solid GrayText;border-radius:6px;margin:0 0 1rem;padding:.5rem 1rem}legend{padding:0 .25rem}button{font:inherit;font-weight:600;padding:.5rem 1.25rem;border:0;border-radius:6px;background:${color};color:${onColor};cursor:pointer}button:focus-visible,input:focus-visible,select:focus-visible,a:focus-visible{outline:2px solid ${color};outline-offset:2px}.error{color:light-dark(#b42318,#ff8a80);font-weight:600}.hint{color:GrayText;font-size:.9rem;margin:-.75rem 0 1rem}</style>
</head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>\n`;
}
