import { css } from "lit";

/**
 * The dashboard's look, shared by every screen: system fonts, one accent, light and dark from the visitor's
 * preference, contrast at least 4.5:1 for text (AA), focus always visible, and nothing that needs a wide screen.
 */
export const shared = css`
  :host {
    --bg: light-dark(#f6f7f9, #0d1117);
    --panel: light-dark(#ffffff, #161b22);
    --text: light-dark(#1f2328, #e6edf3);
    --muted: light-dark(#59636e, #9198a1);
    --line: light-dark(#d1d9e0, #30363d);
    --accent: light-dark(#0b57d0, #6ca4f8);
    --accent-text: light-dark(#ffffff, #0d1117);
    --up: light-dark(#1a7f37, #3fb950);
    --down: light-dark(#c4232d, #ff7b72);
    --warn: light-dark(#8a5300, #d29922);
    --info: light-dark(#0b57d0, #6ca4f8);
    --radius: 8px;
    color-scheme: light dark;
    color: var(--text);
    font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  }
  * {
    box-sizing: border-box;
  }
  h1 {
    font-size: 1.5rem;
    margin: 0 0 0.25rem;
  }
  h2 {
    font-size: 1.125rem;
    margin: 1.5rem 0 0.5rem;
  }
  h3 {
    font-size: 1rem;
    margin: 1rem 0 0.5rem;
  }
  p {
    margin: 0 0 0.75rem;
  }
  a {
    color: var(--accent);
  }
  :focus-visible {
    outline: 2px solid var(--accent);
    outline-offset: 2px;
  }
  .muted {
    color: var(--muted);
  }
  .panel {
    background: var(--panel);
    border: 1px solid var(--line);
    border-radius: var(--radius);
    padding: 1rem;
    margin: 0 0 1rem;
  }
  .bar {
    display: flex;
    flex-wrap: wrap;
    gap: 0.5rem;
    align-items: center;
    justify-content: space-between;
    margin: 0 0 1rem;
  }
  .row {
    display: flex;
    flex-wrap: wrap;
    gap: 0.5rem;
    align-items: center;
  }
  button,
  .button {
    font: inherit;
    font-weight: 600;
    border: 1px solid var(--line);
    background: var(--panel);
    color: var(--text);
    border-radius: 6px;
    padding: 0.45rem 0.9rem;
    cursor: pointer;
    text-decoration: none;
    display: inline-flex;
    align-items: center;
    gap: 0.35rem;
    min-height: 2.25rem;
  }
  button.primary,
  .button.primary {
    background: var(--accent);
    border-color: var(--accent);
    color: var(--accent-text);
  }
  button.danger {
    color: var(--down);
    border-color: var(--down);
  }
  button.danger.solid {
    background: var(--down);
    color: light-dark(#ffffff, #0d1117);
  }
  button:disabled {
    opacity: 0.55;
    cursor: not-allowed;
  }
  button.link {
    border: 0;
    background: none;
    color: var(--accent);
    padding: 0;
    min-height: 0;
    font-weight: 500;
    text-decoration: underline;
  }
  label {
    display: block;
    font-weight: 600;
    margin: 0 0 0.25rem;
  }
  .field {
    margin: 0 0 0.9rem;
  }
  .field small {
    display: block;
    color: var(--muted);
    font-weight: 400;
  }
  input,
  select,
  textarea {
    font: inherit;
    color: var(--text);
    background: var(--bg);
    border: 1px solid var(--line);
    border-radius: 6px;
    padding: 0.45rem 0.6rem;
    width: 100%;
    max-width: 32rem;
  }
  input[type="checkbox"] {
    width: auto;
  }
  input[aria-invalid="true"],
  select[aria-invalid="true"] {
    border-color: var(--down);
  }
  .error {
    color: var(--down);
    font-weight: 500;
    margin: 0.25rem 0 0;
  }
  .notice {
    border-left: 4px solid var(--info);
    padding: 0.5rem 0.75rem;
    background: var(--panel);
    margin: 0 0 1rem;
  }
  .notice.bad {
    border-color: var(--down);
  }
  table {
    width: 100%;
    border-collapse: collapse;
  }
  th,
  td {
    text-align: left;
    padding: 0.55rem 0.5rem;
    border-bottom: 1px solid var(--line);
    vertical-align: middle;
  }
  th {
    font-size: 0.8rem;
    text-transform: uppercase;
    letter-spacing: 0.03em;
    color: var(--muted);
  }
  .chip {
    display: inline-flex;
    align-items: center;
    gap: 0.3rem;
    font-size: 0.85rem;
    font-weight: 600;
    white-space: nowrap;
  }
  .chip::before {
    content: "";
    width: 0.6rem;
    height: 0.6rem;
    border-radius: 50%;
    background: currentColor;
  }
  .up {
    color: var(--up);
  }
  .down {
    color: var(--down);
  }
  .warn {
    color: var(--warn);
  }
  .paused,
  .unknown {
    color: var(--muted);
  }
  .maintenance {
    color: var(--info);
  }
  code,
  pre {
    font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
    font-size: 0.85rem;
  }
  pre {
    background: var(--bg);
    border: 1px solid var(--line);
    border-radius: 6px;
    padding: 0.6rem;
    overflow-x: auto;
    white-space: pre-wrap;
    word-break: break-all;
  }
  .sr-only {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
  }
  @media (max-width: 640px) {
    table.responsive thead {
      display: none;
    }
    table.responsive tr {
      display: block;
      border-bottom: 1px solid var(--line);
      padding: 0.5rem 0;
    }
    table.responsive td {
      display: flex;
      justify-content: space-between;
      gap: 1rem;
      border: 0;
      padding: 0.2rem 0;
    }
    table.responsive td::before {
      content: attr(data-label);
      color: var(--muted);
      font-size: 0.85rem;
    }
  }
  /* A confirmation (deleting a site, an incident): one look for every screen's dialog. */
  dialog {
    border: 1px solid var(--line);
    border-radius: var(--radius);
    background: var(--panel);
    color: var(--text);
    padding: 1.25rem;
    width: min(32rem, calc(100vw - 2rem));
  }
  dialog::backdrop {
    background: rgb(0 0 0 / 0.45);
  }
`;
