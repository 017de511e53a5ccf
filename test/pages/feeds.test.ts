import { Window } from "happy-dom";
import { describe, expect, test } from "vitest";
import type { Incident, PublicStatusPage } from "../../server/contract/status-page.ts";
import { atomFeed, type FeedInput, rssFeed } from "../../server/pages/feeds.ts";
import { publicPageView } from "../support/fixtures.ts";

const HOSTILE_TITLE = `Broken <b>&</b> "quoted"`;
const ATOM_NS = "http://www.w3.org/2005/Atom";

const page = publicPageView({
  name: "Acme & Co",
  description: "Status of <Acme> services",
  items: [{ ...publicPageView().items[0], status: "major_outage", last_check: "2026-11-21T09:59:00.000Z" }],
  incidents: [
    {
      id: 3,
      title: HOSTILE_TITLE,
      status: "identified",
      started_at: "2026-11-21T08:00:00.000Z",
      resolved_at: null,
      duration_minutes: null,
      affected: [],
      updates: [
        { timestamp: "2026-11-21T09:30:00.000Z", status: "identified", message: "Found it\u0001 🔥 it's the <db>" },
        { timestamp: "2026-11-21T08:00:00.000Z", status: "investigating", message: "Looking & checking" },
      ],
    },
    {
      id: 2,
      title: "Slow API",
      status: "resolved",
      started_at: "2026-11-01T10:00:00.000Z",
      resolved_at: "2026-11-01T11:00:00.000Z",
      duration_minutes: 60,
      affected: [],
      updates: [
        { timestamp: "2026-11-01T11:00:00.000Z", status: "resolved", message: "Fixed" },
        { timestamp: "2026-11-01T10:00:00.000Z", status: "investigating", message: "Slow" },
      ],
    },
  ],
}) as PublicStatusPage;

const input: FeedInput = {
  page,
  pageUrl: "https://status.example.com/acme/",
  rssUrl: "https://status.example.com/acme/feed.rss",
  atomUrl: "https://status.example.com/acme/feed.atom",
  generatedAt: new Date("2026-11-21T10:00:00.000Z"),
};

const TIMELINE_3 = [
  "2026-11-21T09:30:00.000Z Identified: Found it 🔥 it's the <db>",
  "2026-11-21T08:00:00.000Z Investigating: Looking & checking",
].join("\n");

function withIncidents(incidents: Incident[], description = page.description): FeedInput {
  return { ...input, page: { ...page, description, incidents } };
}

const parser = new new Window().DOMParser();

/** Parses with happy-dom, which catches mismatched tags and undeclared prefixes but not everything (see below). */
function parse(xml: string): Document {
  const doc = parser.parseFromString(xml, "application/xml") as unknown as Document;
  expect(doc.getElementsByTagName("parsererror")).toHaveLength(0);
  return doc;
}

/**
 * happy-dom's XML parser accepts a bare `&`, duplicate attributes and characters XML 1.0 forbids (\u0000,
 * \uFFFE, lone surrogates), so this checks those too. It is stricter than XML where our output does not care
 * (ASCII names only; no DOCTYPE, CDATA, numeric references or further processing instructions), and is meant never
 * to be looser. Returns the first problem found, or null.
 */
function wellFormednessProblem(xml: string): string | null {
  const declaration = '<?xml version="1.0" encoding="utf-8"?>';
  if (!xml.startsWith(declaration)) return "missing XML declaration";
  const illegal = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u.exec(xml);
  if (illegal) return `illegal character U+${illegal[0].charCodeAt(0).toString(16)} at ${illegal.index}`;
  // Numeric references are rejected outright: the feeds never write them, and &#1; would not be well-formed.
  const badReference = /&(?!(?:amp|lt|gt|quot|apos);)/;
  const name = "[A-Za-z_][\\w.-]*(?::[A-Za-z_][\\w.-]*)?";
  const attribute = new RegExp(`\\s+(${name})\\s*=\\s*(?:"([^<"]*)"|'([^<']*)')`, "y");
  const open: { name: string; prefixes: Set<string> }[] = [];
  let rootSeen = false;
  let pos = declaration.length;
  while (pos < xml.length) {
    const lt = xml.indexOf("<", pos);
    const text = xml.slice(pos, lt === -1 ? xml.length : lt);
    if (badReference.test(text) || text.includes("]]>")) return `bad text at ${pos}`;
    if (open.length === 0 && text.trim() !== "") return `text outside the root element at ${pos}`;
    if (lt === -1) break;
    if (xml.startsWith("<!--", lt)) {
      const end = xml.indexOf("-->", lt + 4);
      if (end === -1 || xml.slice(lt + 4, end).includes("--")) return `bad comment at ${lt}`;
      pos = end + 3;
      continue;
    }
    const endTag = new RegExp(`</(${name})\\s*>`, "y");
    endTag.lastIndex = lt;
    const closing = endTag.exec(xml);
    if (closing) {
      if (open.pop()?.name !== closing[1]) return `mismatched </${closing[1]}> at ${lt}`;
      pos = endTag.lastIndex;
      continue;
    }
    const startTag = new RegExp(`<(${name})`, "y");
    startTag.lastIndex = lt;
    const opening = startTag.exec(xml);
    if (!opening?.[1]) return `unexpected markup at ${lt}`;
    if (open.length === 0 && rootSeen) return `second root element at ${lt}`;
    rootSeen = true;
    const prefixes = new Set(open.at(-1)?.prefixes ?? ["xml"]);
    const names = new Set<string>();
    let tagEnd = startTag.lastIndex;
    attribute.lastIndex = tagEnd;
    for (let m = attribute.exec(xml); m; m = attribute.exec(xml)) {
      const [, attr = "", double, single] = m;
      if (names.has(attr)) return `duplicate attribute ${attr} at ${lt}`;
      if (badReference.test(double ?? single ?? "")) return `bad attribute value at ${lt}`;
      names.add(attr);
      if (attr.startsWith("xmlns:")) prefixes.add(attr.slice(6));
      tagEnd = attribute.lastIndex;
    }
    const close = /\s*(\/?)>/y;
    close.lastIndex = tagEnd;
    const end = close.exec(xml);
    if (!end) return `malformed tag at ${lt}`;
    for (const qualified of [opening[1], ...[...names].filter((n) => !n.startsWith("xmlns:"))]) {
      const prefix = qualified.includes(":") ? qualified.split(":")[0] : undefined;
      if (prefix !== undefined && !prefixes.has(prefix)) return `undeclared prefix ${prefix} at ${lt}`;
    }
    if (end[1] === "") open.push({ name: opening[1], prefixes });
    pos = close.lastIndex;
  }
  if (open.length > 0) return `unclosed <${open.at(-1)?.name}>`;
  return rootSeen ? null : "no root element";
}

function text(parent: Document | Element, tag: string): string | null | undefined {
  return parent.getElementsByTagName(tag)[0]?.textContent;
}

describe("well-formedness checker", () => {
  test("accepts a small valid document", () => {
    const ok = `<?xml version="1.0" encoding="utf-8"?>\n<a xmlns:x="urn:x" b='1'><!-- c --><x:y z="&amp;&quot;"/>&lt;</a>\n`;
    expect(wellFormednessProblem(ok)).toBeNull();
  });

  test("rejects what happy-dom lets through, and what it does not", () => {
    const head = '<?xml version="1.0" encoding="utf-8"?>';
    for (const broken of [
      "<a>&</a>",
      "<a>&amp</a>",
      "<a>&#1;</a>",
      "<a>x\u0001y</a>",
      "<a>x\uFFFEy</a>",
      "<a>x\uD800y</a>",
      '<a x="1" x="2"/>',
      '<a x="<"/>',
      "<a><b></a></b>",
      "<a>",
      "<a/><b/>",
      "<atom:link/>",
      "<a/>text",
    ]) {
      expect(wellFormednessProblem(head + broken), broken).not.toBeNull();
    }
    expect(wellFormednessProblem("<a/>")).toBe("missing XML declaration");
  });
});

describe("rssFeed", () => {
  const xml = rssFeed(input);

  test("is well-formed RSS 2.0 with the channel's metadata", () => {
    expect(wellFormednessProblem(xml)).toBeNull();
    const doc = parse(xml);
    const rss = doc.documentElement;
    expect(rss.tagName).toBe("rss");
    expect(rss.getAttribute("version")).toBe("2.0");
    expect(rss.getAttribute("xmlns:atom")).toBe(ATOM_NS);
    const channel = rss.getElementsByTagName("channel")[0];
    if (!channel) throw new Error("no channel");
    expect(channel.getElementsByTagName("title")[0]?.textContent).toBe("Acme & Co status");
    expect(channel.getElementsByTagName("link")[0]?.textContent).toBe(input.pageUrl);
    expect(channel.getElementsByTagName("description")[0]?.textContent).toBe("Status of <Acme> services");
    const self = channel.getElementsByTagName("atom:link")[0];
    expect(self?.getAttribute("rel")).toBe("self");
    expect(self?.getAttribute("type")).toBe("application/rss+xml");
    expect(self?.getAttribute("href")).toBe(input.rssUrl);
    // The newest change among the incidents, not generatedAt.
    expect(text(channel, "lastBuildDate")).toBe("Sat, 21 Nov 2026 09:30:00 GMT");
  });

  test("has one item per incident, newest first, with escaped text coming back literally", () => {
    const items = [...parse(xml).getElementsByTagName("item")];
    expect(items).toHaveLength(2);
    const [first, second] = items as [Element, Element];
    expect(text(first, "title")).toBe(`${HOSTILE_TITLE} (Identified)`);
    expect(text(first, "link")).toBe("https://status.example.com/acme/#incident-3");
    const guid = first.getElementsByTagName("guid")[0];
    expect(guid?.getAttribute("isPermaLink")).toBe("false");
    expect(guid?.textContent).toBe("acme-incident-3");
    expect(text(first, "pubDate")).toBe("Sat, 21 Nov 2026 08:00:00 GMT");
    expect(text(first, "description")).toBe(TIMELINE_3);
    expect(text(second, "title")).toBe("Slow API (Resolved)");
    expect(text(second, "guid")).toBe("acme-incident-2");
  });

  test("escapes markup and drops the control character in the raw document", () => {
    expect(xml).not.toContain("\u0001");
    expect(xml).not.toContain("<b>");
    expect(xml).toContain("Broken &lt;b&gt;&amp;&lt;/b&gt; &quot;quoted&quot;");
    expect(xml).toContain("it&apos;s the &lt;db&gt;");
    expect(xml).toContain("🔥");
  });

  test("guid is stable across builds", () => {
    const later = rssFeed({ ...input, generatedAt: new Date("2027-01-01T00:00:00Z") });
    const guids = (s: string) => [...parse(s).getElementsByTagName("guid")].map((g) => g.textContent);
    expect(guids(later)).toEqual(guids(xml));
  });
});

describe("atomFeed", () => {
  const xml = atomFeed(input);

  test("is well-formed Atom 1.0 with the feed's metadata", () => {
    expect(wellFormednessProblem(xml)).toBeNull();
    const feed = parse(xml).documentElement;
    expect(feed.localName).toBe("feed");
    expect(feed.namespaceURI).toBe(ATOM_NS);
    const top = (tag: string) => [...feed.children].filter((c) => c.localName === tag);
    expect(top("id")[0]?.textContent).toBe(input.pageUrl);
    expect(top("title")[0]?.textContent).toBe("Acme & Co status");
    expect(top("updated")[0]?.textContent).toBe("2026-11-21T09:30:00.000Z");
    expect(top("author")[0]?.getElementsByTagName("name")[0]?.textContent).toBe("Acme & Co");
    const links = top("link").map((l) => [l.getAttribute("rel"), l.getAttribute("href")]);
    expect(links).toEqual([
      ["alternate", input.pageUrl],
      ["self", input.atomUrl],
    ]);
  });

  test("has one entry per incident, newest first, with escaped text coming back literally", () => {
    const entries = [...parse(xml).getElementsByTagName("entry")];
    expect(entries).toHaveLength(2);
    const [first, second] = entries as [Element, Element];
    expect(text(first, "id")).toBe("https://status.example.com/acme/#incident-3");
    expect(text(first, "title")).toBe(`${HOSTILE_TITLE} (Identified)`);
    expect(first.getElementsByTagName("link")[0]?.getAttribute("href")).toBe(
      "https://status.example.com/acme/#incident-3",
    );
    expect(text(first, "published")).toBe("2026-11-21T08:00:00.000Z");
    expect(text(first, "updated")).toBe("2026-11-21T09:30:00.000Z");
    const content = first.getElementsByTagName("content")[0];
    expect(content?.getAttribute("type")).toBe("text");
    expect(content?.textContent).toBe(TIMELINE_3);
    expect(text(second, "id")).toBe("https://status.example.com/acme/#incident-2");
    expect(text(second, "updated")).toBe("2026-11-01T11:00:00.000Z");
    expect(xml).not.toContain("\u0001");
    expect(xml).not.toContain("<b>");
  });

  test("an entry without updates is updated when it was resolved", () => {
    const quiet: Incident = { ...(page.incidents[1] as Incident), updates: [] };
    const entry = parse(atomFeed(withIncidents([quiet]))).getElementsByTagName("entry")[0];
    expect(entry && text(entry, "updated")).toBe("2026-11-01T11:00:00.000Z");
    expect(entry && text(entry, "content")).toBe("");
  });
});

describe("both feeds", () => {
  test("strip every character XML 1.0 forbids, keeping tab, newlines and astral characters", () => {
    const message = "a\u0000b\u0008c\u000Bd\u001Fe\uFFFEf\uFFFFg\uD800h\uDC00i\tj\nk 😀";
    const incident: Incident = {
      id: 9,
      title: "t\u0007",
      status: "investigating",
      started_at: "2026-11-21T08:00:00.000Z",
      resolved_at: null,
      duration_minutes: null,
      impact: "none",
      affected: [],
      updates: [{ timestamp: "2026-11-21T08:00:00.000Z", status: "investigating", message }],
    };
    const feeds = [
      { xml: rssFeed(withIncidents([incident])), entry: "item", body: "description" },
      { xml: atomFeed(withIncidents([incident])), entry: "entry", body: "content" },
    ];
    for (const { xml, entry: tag, body } of feeds) {
      expect(wellFormednessProblem(xml)).toBeNull();
      const entry = parse(xml).getElementsByTagName(tag)[0];
      if (!entry) throw new Error(`no ${tag}`);
      expect(text(entry, "title")).toBe("t (Investigating)");
      expect(text(entry, body)).toBe("2026-11-21T08:00:00.000Z Investigating: abcdefghi\tj\nk 😀");
    }
  });

  test("with no incidents are valid, empty and dated generatedAt", () => {
    const empty = withIncidents([], "");
    const rss = rssFeed(empty);
    const atom = atomFeed(empty);
    expect(wellFormednessProblem(rss)).toBeNull();
    expect(wellFormednessProblem(atom)).toBeNull();
    const rssDoc = parse(rss);
    expect(rssDoc.getElementsByTagName("item")).toHaveLength(0);
    expect(text(rssDoc, "lastBuildDate")).toBe(input.generatedAt.toUTCString());
    expect(text(rssDoc, "description")).toBe("Incidents of Acme & Co");
    const atomDoc = parse(atom);
    expect(atomDoc.getElementsByTagName("entry")).toHaveLength(0);
    expect(text(atomDoc, "updated")).toBe("2026-11-21T10:00:00.000Z");
  });

  test("keep the newest 50 incidents in the order given", () => {
    const many: Incident[] = Array.from({ length: 60 }, (_, n) => ({
      ...(page.incidents[1] as Incident),
      id: 60 - n,
      title: `Incident ${60 - n}`,
    }));
    const guids = [...parse(rssFeed(withIncidents(many))).getElementsByTagName("guid")].map((g) => g.textContent);
    expect(guids).toHaveLength(50);
    expect(guids[0]).toBe("acme-incident-60");
    expect(guids[49]).toBe("acme-incident-11");
    const ids = [...parse(atomFeed(withIncidents(many))).getElementsByTagName("entry")].map((e) => text(e, "id"));
    expect(ids).toHaveLength(50);
    expect(ids.at(-1)).toBe("https://status.example.com/acme/#incident-11");
  });
});

describe("maintenance in the feeds (issue 18)", () => {
  const maintenance: PublicStatusPage["maintenance"] = [
    {
      id: "mw_1",
      title: "Database <upgrade>",
      description: "Checkout may be slow.",
      startsAt: "2026-11-22T01:00:00.000Z",
      endsAt: "2026-11-22T02:30:00.000Z",
      active: false,
      items: [1],
    },
  ];
  const withMaintenance: FeedInput = { ...input, page: { ...page, maintenance } };

  test("RSS: a scheduled window is an item of its own before the incidents, its guid naming the occurrence", () => {
    const xml = rssFeed(withMaintenance);
    expect(wellFormednessProblem(xml)).toBeNull();
    const items = [...parse(xml).getElementsByTagName("item")];
    expect(items).toHaveLength(3);
    const first = items[0] as Element;
    const text = (name: string) => first.getElementsByTagName(name)[0]?.textContent;
    expect(text("title")).toBe("Maintenance: Database <upgrade> (scheduled)");
    expect(text("guid")).toBe("acme-maintenance-mw_1-2026-11-22T01:00:00.000Z");
    expect(text("description")).toBe(
      "From 2026-11-22T01:00:00.000Z until 2026-11-22T02:30:00.000Z\nCheckout may be slow.",
    );
  });

  test("Atom: a window under way says so, with its start as published", () => {
    const active = { ...withMaintenance, page: { ...page, maintenance: [{ ...maintenance[0], active: true }] } };
    const xml = atomFeed(active as FeedInput);
    expect(wellFormednessProblem(xml)).toBeNull();
    const entry = parse(xml).getElementsByTagName("entry")[0] as Element;
    expect(entry.getElementsByTagName("title")[0]?.textContent).toBe("Maintenance: Database <upgrade> (in progress)");
    expect(entry.getElementsByTagName("published")[0]?.textContent).toBe("2026-11-22T01:00:00.000Z");
  });
});
