// @ts-expect-error: a plain ES module script, shared with `npm start`.
import { buildElement } from "../bin/build-element.mjs";

/**
 * Every run tests the element as it is now: dist/embed (both scripts) is rebuilt before the suites when its sources
 * changed since the last build, as `npm start` does.
 */
export default function setup(): void {
  buildElement({ log: () => {} });
}
