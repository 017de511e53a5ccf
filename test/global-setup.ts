// @ts-expect-error: a plain ES module script, shared with `npm start`.
import { buildDocs } from "../bin/build-docs.mjs";
// @ts-expect-error: a plain ES module script, shared with `npm start`.
import { buildElement } from "../bin/build-element.mjs";

/**
 * Every run tests the element as it is now: dist/embed (both scripts) is rebuilt before the suites when its sources
 * changed since the last build, as `npm start` does. So is the documentation (dist/docs, which the server's /docs/
 * serves), once for every suite that reads it; a failed build (a broken link) does not stop the other suites:
 * test/docs-site.test.ts builds again and fails with Astro's message.
 */
export default function setup(): void {
  buildElement({ log: () => {} });
  try {
    buildDocs({ log: () => {} });
  } catch {
    // Reported by test/docs-site.test.ts.
  }
}
