import { css } from "lit";

// Colours are light-dark() pairs, so one declaration serves the light, dark and auto themes (color-scheme picks);
// every text colour keeps at least 4.5:1 against the background of its theme. The host keeps one height from the
// skeleton to the page (a host page's own `height` on the element wins), so nothing around it moves when the page
// replaces the skeleton; a longer page scrolls inside the box. A message instead of a page (the password prompt, a
// private or unknown page, an error: the custom state "message") is as tall as its content, box and host.
export const styles = css`
  :host {
    all: initial;
    display: block;
    height: 600px;
    --_bg: var(--porchlight-background, light-dark(#fff, #0d1117));
    --_fg: var(--porchlight-color, light-dark(#1f2328, #e6edf3));
    --_muted: light-dark(#59636e, #9198a1);
    --_line: light-dark(#d1d9e0, #3d444d);
    --_link: light-dark(#0b57d0, #8ab4f8);
    --_warn: var(--porchlight-degraded-color, light-dark(#9a6700, #d29922));
    --_part: var(--porchlight-partial-color, light-dark(#bc4c00, #f0883e));
    --_bad: var(--porchlight-outage-color, light-dark(#c4232d, #ff7b72));
    /* Text on a status colour (the banner, a chip): not the background, which a host may make transparent. */
    --_on: light-dark(#fff, #0d1117);
  }
  :host([compact]) {
    height: 360px;
  }
  :host(:state(message)),
  :host(:state(message)) [part="base"] {
    height: auto;
  }
  :host([hidden]) {
    display: none;
  }
  * {
    margin: 0;
    padding: 0;
    list-style: none;
    box-sizing: border-box;
  }
  [part="base"] {
    color: var(--_fg);
    font: 15px/1.5 var(--porchlight-font, system-ui, sans-serif);
    border: 1px solid var(--_line);
    border-top: 4px solid var(--porchlight-accent, var(--_accent));
    border-radius: 8px;
    padding: 1em;
    height: 100%;
    overflow: auto;
    position: relative;
    container-type: inline-size;
    /*
     * Content that scrolls shows that it does: a shade at the edge with more beyond it. The covers scroll with the
     * content (local) and hide the shades (fixed to the box) at either end.
     */
    --_shade: color-mix(in srgb, var(--_fg) 22%, #0000);
    background:
      linear-gradient(var(--_bg) 30%, #0000) top / 100% 2.5em no-repeat local,
      linear-gradient(#0000, var(--_bg) 70%) bottom / 100% 2.5em no-repeat local,
      radial-gradient(farthest-side at 50% 0, var(--_shade), #0000) top / 100% 0.9em no-repeat,
      radial-gradient(farthest-side at 50% 100%, var(--_shade), #0000) bottom / 100% 0.9em no-repeat,
      var(--_bg);
  }
  /*
   * The type scale, in steps of 1.2 from the 15 px body: 13 px for what is secondary (every p: descriptions, figures,
   * dates, and the tooltip), 15 px for what is read (service names, incident titles, messages), 18 px for sections,
   * the banner and a message's heading (a sentence, so it fits a phone's width on two lines), 24 px for the page's name.
   */
  h2 {
    font-size: 1.6em;
  }
  h3,
  [part="banner"],
  div h2,
  form h2 {
    font-size: 1.2em;
  }
  h3 {
    margin-top: 1em;
  }
  p,
  .tip,
  section > h4 {
    font-size: 0.87em;
  }
  h5,
  ol ol p {
    font-size: 1em;
  }
  :focus-visible {
    outline: 2px solid var(--_link);
  }
  a {
    color: var(--_link);
  }
  p {
    color: var(--_muted);
    overflow-wrap: anywhere;
  }
  /*
   * A status's mark differs by shape, not by hue alone: operational a tick; degraded "!" in a ring; partial outage a
   * half-filled disc; major outage "×" in a filled disc.
   */
  [data-mark]::before {
    content: attr(data-mark);
    margin-inline-end: 0.4em;
    display: inline-grid;
    place-items: center;
    width: 1.15em;
    height: 1.15em;
    vertical-align: -0.15em;
    border-radius: 50%;
    font-weight: 800;
    font-size: 0.9em;
    line-height: 1;
  }
  :is(.warn, .part) [data-mark]::before {
    box-shadow: inset 0 0 0 0.14em;
  }
  .part [data-mark]::before {
    background: linear-gradient(90deg, var(--_c) 50%, #0000 0);
  }
  .bad [data-mark]::before {
    background: var(--_c);
    color: var(--_bg);
  }
  .ok {
    --_c: var(--porchlight-operational-color, light-dark(#1a7f37, #3fb950));
  }
  .warn {
    --_c: var(--_warn);
  }
  .part {
    --_c: var(--_part);
  }
  .bad,
  [role="alert"] {
    --_c: var(--_bad);
  }
  .info {
    --_c: var(--_link);
  }
  .none {
    --_c: var(--_muted);
  }
  .ok,
  .warn,
  .part,
  .bad,
  .info,
  .none,
  [role="alert"] {
    color: var(--_c);
  }
  /*
   * The overall status: a solid band in its colour, the text in the background's (at least 4.5:1 in each theme),
   * its icon in a disc, and under it the services affected.
   */
  [part="banner"] {
    margin: 1em 0 0.25em;
    padding: 0.75em 1em;
    border-radius: 6px;
    font-weight: 600;
    background: var(--_c);
  }
  [part="banner"] *,
  [part="banner"] {
    color: var(--_on);
  }
  [part="banner"] [data-mark]::before {
    width: 1.4em;
    height: 1.4em;
    box-shadow: none;
    background: var(--_on);
    color: var(--_c);
  }
  [part="banner"] .part [data-mark]::before {
    box-shadow: inset 0 0 0 0.14em var(--_on);
    background: linear-gradient(90deg, var(--_on) 50%, #0000 0);
  }
  [part="banner"] p {
    font-weight: 400;
  }
  /* A fold shows that it opens: the disclosure triangle, which the reset of list styles would take away. */
  summary {
    padding: 0.75em 0;
    border-top: 1px solid var(--_line);
    cursor: pointer;
    list-style: disclosure-closed inside;
  }
  [open] > summary {
    list-style-type: disclosure-open;
  }
  li summary {
    padding: 0.25em 0;
    border: 0;
  }
  li {
    padding: 0.75em 0;
    border-top: 1px solid var(--_line);
  }
  li li {
    padding: 0.25em 0;
    border: 0;
  }
  [part="item"] div,
  [part="group"] > div {
    display: flex;
    flex-wrap: wrap;
    justify-content: space-between;
    font-weight: 600;
  }
  /* A group's button reads as its row's title, with a triangle that says whether it is open. */
  [part="group"] button {
    font: inherit;
    color: inherit;
    background: none;
    border: 0;
    padding: 0;
    cursor: pointer;
  }
  [part="group"] button::before {
    content: "▸ ";
  }
  [part="group"] [aria-expanded="true"]::before {
    content: "▾ ";
  }
  [part="group"] li {
    padding: 0.75em 0 0 1em;
  }
  /*
   * An item's days: one bar (an i, the element's only one) per run of days at one level, as wide as its days (--d of --n shown), the newest at the
   * end, the oldest clipped on a narrow element; each bar's background is one day's tile with a 1 px gap, repeated (a repeating gradient
   * of a fractional period loses gaps in Chromium).
   */
  [part="item"] {
    --n: var(--days);
  }
  [part="history"] {
    display: flex;
    justify-content: flex-end;
    overflow: hidden;
    height: 1.75em;
    margin-top: 0.5em;
  }
  i {
    flex: none;
    width: calc(100% * var(--d) / var(--n));
    background: linear-gradient(90deg, currentColor calc(100% - 1px), #0000 0) 0 / calc(100% / var(--d));
  }
  /*
   * The bars differ by lightness, not hue alone (colour-blind visitors see one olive otherwise): up and down at least
   * 3:1 apart in each theme (a test holds them to it), degraded between; a day without data is faint.
   */
  i.ok {
    color: light-dark(#2da44e, #1f7a32);
  }
  i.g1 {
    color: light-dark(#768a00, #7f9a1a);
  }
  i.g2 {
    color: light-dark(#9a6700, #c99020);
  }
  i.g3 {
    color: light-dark(#a83c00, #f3954c);
  }
  i.bad {
    color: light-dark(#820a1c, #ffc1bc);
  }
  i.none {
    color: light-dark(#e6eaef, #262c36);
  }
  /* Under the bars, which begin at the first day with data (--s days of the --n shown). */
  .axis {
    display: flex;
    justify-content: space-between;
    gap: 1em;
    width: calc(100% * min(var(--s), var(--n)) / var(--n));
    min-width: max-content;
    margin-inline-start: auto;
  }
  .short {
    display: none;
  }
  /* Narrow: the last 30 days, wider bars. */
  @container (width < 480px) {
    [part="item"] {
      --n: min(var(--days), 30);
    }
    .long {
      display: none;
    }
    .short {
      display: inline;
    }
  }
  .tip {
    position: absolute;
    white-space: pre-line;
    max-width: min(20em, 90%);
    width: max-content;
    border-radius: 4px;
    z-index: 1;
    padding: 0.25em 0.5em;
    color: var(--_bg);
    background: var(--_fg);
  }
  /* An instant never parts from its zone ("10:37 PM" on one line, "PST" on the next). */
  time {
    white-space: nowrap;
  }
  /* An incident's status as a chip in its colour; the message of each update in full contrast, as body text. */
  /* An incident's phase is no status: a neutral chip. */
  .chip {
    padding: 0 0.5em;
    margin-inline-end: 0.4em;
    border: 1px solid var(--_line);
    border-radius: 1em;
    color: var(--_fg);
    font-weight: 600;
  }
  /* An incident's impact: the colour of its edge, and its word. */
  [part="incident"] {
    border-inline-start: 3px solid #0000;
    padding-inline-start: 0.75em;
  }
  [data-impact="minor"] {
    border-inline-start-color: var(--_warn);
  }
  [data-impact="major"] {
    border-inline-start-color: var(--_part);
  }
  [data-impact="critical"] {
    border-inline-start-color: var(--_bad);
  }
  .svc {
    white-space: nowrap;
    color: var(--_fg);
  }
  .svc > span {
    font-weight: 600;
    margin-inline-start: 0.25em;
  }
  /* Maintenance to come: one quiet line each, in a light box under the services. */
  [part="maintenance"] li {
    font-size: 0.87em;
  }
  .soon {
    margin-top: 1em;
    padding: 0 0.75em;
    border: 1px solid var(--_line);
    border-radius: 6px;
    color: var(--_muted);
  }
  .soon li {
    padding: 0.5em 0;
  }
  .soon > li:first-child {
    border: 0;
  }
  ol ol p {
    color: var(--_fg);
  }
  /* A day's heading over its past incidents (a past incident's title, an h5, reads as large as an active one's). */
  section > h4 {
    margin-top: 0.75em;
    color: var(--_muted);
  }
  [part="incident"] ol {
    padding-inline-start: 0.75em;
    border-inline-start: 2px solid var(--_line);
  }
  /* The prompt: a lock or the page's logo, its name, and a field and button across a form of a readable width. */
  form {
    display: grid;
    gap: 0.5em;
    max-width: 24em;
    margin: 1em auto;
    text-align: center;
  }
  form h2 {
    text-wrap: balance;
  }
  form svg {
    width: 2em;
    height: 2em;
    margin: 0 auto;
    color: var(--porchlight-accent, var(--_accent));
  }
  form img {
    max-width: 12em;
    max-height: 3em;
    margin: 0 auto;
  }
  form label {
    text-align: start;
    font-weight: 600;
  }
  form .reveal {
    font-weight: 400;
    font-size: 0.87em;
  }
  form button {
    width: 100%;
    font-weight: 600;
    color: var(--_on-accent);
    background: var(--porchlight-accent, var(--_accent));
    border-color: #0000;
  }
  input,
  button {
    font: inherit;
    color: inherit;
    background: var(--_bg);
    border: 1px solid var(--_muted);
    border-radius: 6px;
    padding: 0.5em 0.75em;
  }
  .reveal input {
    padding: 0;
    margin-inline-end: 0.4em;
    vertical-align: -0.1em;
  }
  [aria-invalid="true"] {
    border-color: var(--_bad);
  }
  button {
    color: var(--_bg);
    background: var(--_fg);
  }
  [part="skeleton"] {
    height: 100%;
    background: linear-gradient(var(--_line) 2em, #0000 0) 0 0 / 100% 3.5em;
  }
  @media (prefers-reduced-motion: no-preference) {
    [part="skeleton"] {
      animation: pulse 1.5s infinite alternate;
    }
  }
  @keyframes pulse {
    to {
      opacity: 0.5;
    }
  }
  /* Read, not shown: the skeleton's "Loading…", compact's "Services" heading. */
  [part="skeleton"] p,
  .vh {
    position: absolute;
    clip-path: inset(50%);
    width: 1px;
    height: 1px;
    overflow: hidden;
    white-space: nowrap;
  }
`;
