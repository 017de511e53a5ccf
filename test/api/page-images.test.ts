import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, test } from "vitest";
import { Envelope, ErrorEnvelope } from "../../server/contract/common.ts";
import { MAX_IMAGE_BYTES, PublicStatusPage, StatusPage } from "../../server/contract/status-page.ts";
import type { Store } from "../../server/store/store.ts";
import { type App, client, describeStores, makeApp, seedOwner, useStore } from "../helpers.ts";
import { gifHeader, gifWithFrame, icoWithPng, pngImage, svgLogo } from "../support/images.ts";

const PageEnvelope = Envelope(StatusPage);
const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/**
 * Issue 17, part 5: a page's logo and favicon, an https address or an image uploaded to the server (size-limited,
 * checked against its type, raster up to 4096 px, SVG without DOCTYPE and served with a CSP that forbids script).
 */
describeStores("a status page's logo and favicon", (kind) => {
  let store: Store;
  let app: App;
  let listener: ReturnType<typeof makeApp>["listener"];
  let api: ReturnType<typeof client>;
  let token: string;

  useStore(kind, async (opened) => {
    ({ store } = opened);
    ({ app, listener } = makeApp(store));
    token = (await seedOwner(store, "stack")).token;
    api = client(app, token);
  });

  let n = 0;
  const newPage = async (extra: Record<string, unknown> = {}) => {
    n++;
    const slug = `logo-${kind.name}-${n}`;
    const made = await api.post("/public/v1/status-pages", { name: `Logo ${n}`, slug, ...extra });
    expect(made.status).toBe(201);
    return { id: made.json.data.id as number, slug };
  };
  const put = (path: string, body: Uint8Array, type: string, as = token) =>
    app.request(path, {
      method: "PUT",
      headers: { authorization: `Bearer ${as}`, "content-type": type },
      body: body as Uint8Array<ArrayBuffer>,
    });
  const imageRows = () => store.db.selectFrom("page_images").select(["page_id", "kind", "hash"]).execute();

  test("an uploaded PNG is stored by its hash, served for a year, and named by the page and its public view", async () => {
    const { id, slug } = await newPage();
    const before = await app.request(`/public/v1/status-page/${slug}`);
    const png = pngImage(64, 32);
    const res = await put(`/public/v1/status-pages/${id}/logo`, png, "image/png");
    expect(res.status).toBe(200);
    const page = PageEnvelope.parse(await res.json()).data;
    expect(page.logo).toBe(`/assets/${sha(png)}.png`);
    expect(page.favicon).toBeNull();

    const asset = await app.request(page.logo as string);
    expect(asset.status).toBe(200);
    expect(new Uint8Array(await asset.arrayBuffer())).toEqual(png);
    expect(asset.headers.get("content-type")).toBe("image/png");
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(asset.headers.get("x-content-type-options")).toBe("nosniff");
    const etag = asset.headers.get("etag") as string;
    const again = await app.request(page.logo as string, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);

    // The public view names it, and its ETag moved (a visitor's 304 would otherwise keep the page without it).
    const view = await app.request(`/public/v1/status-page/${slug}`);
    expect(PublicStatusPage.parse(await view.json()).logo).toBe(page.logo);
    expect(view.headers.get("etag")).not.toBe(before.headers.get("etag"));
    // The hosted page shows it as its heading, named by the page's title.
    const html = await (await app.request(`/${slug}`)).text();
    expect(html).toContain(`<h1 class="logo"><img src="${page.logo}" alt="Logo ${n} status"></h1>`);
  });

  test("an SVG is served with a policy that forbids script; a favicon becomes the page's icon", async () => {
    const { id, slug } = await newPage();
    const svg = svgLogo();
    const res = await put(`/public/v1/status-pages/${id}/favicon`, svg, "image/svg+xml; charset=utf-8");
    expect(res.status).toBe(200);
    const { favicon } = PageEnvelope.parse(await res.json()).data;
    expect(favicon).toBe(`/assets/${sha(svg)}.svg`);
    const asset = await app.request(favicon as string);
    expect(asset.headers.get("content-type")).toBe("image/svg+xml");
    const csp = asset.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("sandbox");
    expect(csp).not.toMatch(/script-src/);
    const html = await (await app.request(`/${slug}`)).text();
    expect(html).toContain(`<link rel="icon" href="${favicon}">`);
    expect(html).not.toContain("data-status");
  });

  test("without a favicon the page's icon is a disc in its status's colour; a protected page's prompt shows its logo", async () => {
    const { slug } = await newPage({ logo: "https://cdn.example.com/acme.png" });
    const html = await (await app.request(`/${slug}`)).text();
    // No items: unknown, grey.
    expect(html).toMatch(/<link rel="icon" href="data:image\/svg\+xml,[^"]*%2359636e[^"]*" data-status>/);
    expect(html).toContain('<img src="https://cdn.example.com/acme.png"');
    const locked = await newPage({
      visibility: "password-protected",
      password: "correct horse",
      logo: "https://cdn.example.com/secret.png",
    });
    // Issue 27: the prompt names the page with its logo, as the page itself does.
    const prompt = await (await app.request(`/${locked.slug}`)).text();
    expect(prompt).toContain('<img src="https://cdn.example.com/secret.png"');
    // The unlocked view names it.
    const view = await app.request(`/public/v1/status-page/${locked.slug}`, {
      headers: { "x-status-page-password": "correct horse" },
    });
    expect((await view.json()).logo).toBe("https://cdn.example.com/secret.png");
  });

  test("a bad image is refused with a clear 4xx, and the page keeps what it had", async () => {
    const { id } = await newPage();
    const good = pngImage(8, 8);
    expect((await put(`/public/v1/status-pages/${id}/logo`, good, "image/png")).status).toBe(200);
    const rows = await imageRows();
    const cases: [Uint8Array, string, number, RegExp][] = [
      [good, "text/plain", 415, /Content-Type must be an image type/],
      [good, "application/json", 415, /image type/],
      [gifHeader(10, 10), "image/png", 400, /Content-Type says PNG, but the body is a GIF image/],
      [pngImage(5000, 10, undefined, false), "image/png", 400, /at most 4096 x 4096 pixels; this one is 5000 x 10/],
      [gifHeader(10, 40_000), "image/gif", 400, /at most 4096 x 4096/],
      [new Uint8Array(), "image/png", 400, /empty/],
      [new TextEncoder().encode("just some text, not an image"), "image/png", 400, /not an image/],
      [
        new TextEncoder().encode(
          '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaa">]><svg xmlns="http://www.w3.org/2000/svg" width="1" height="1">&a;</svg>',
        ),
        "image/svg+xml",
        400,
        /DOCTYPE or entities/,
      ],
      [
        new Uint8Array([
          ...new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1">'),
          0xff,
          0xfe,
        ]),
        "image/svg+xml",
        400,
        /UTF-8/,
      ],
    ];
    for (const [body, type, status, message] of cases) {
      const res = await put(`/public/v1/status-pages/${id}/logo`, body, type);
      expect(res.status, `${type} ${message}`).toBe(status);
      const error = ErrorEnvelope.parse(await res.json());
      expect(error.message).toMatch(message);
    }
    // Over the limit: 413 before the body is read.
    const large = new Uint8Array(MAX_IMAGE_BYTES + 1);
    large.set(good);
    const tooLarge = await put(`/public/v1/status-pages/${id}/logo`, large, "image/png");
    expect(tooLarge.status).toBe(413);
    expect(ErrorEnvelope.parse(await tooLarge.json()).error).toBe("payload_too_large");

    expect(await imageRows()).toEqual(rows);
    const page = PageEnvelope.parse((await api.get(`/public/v1/status-pages/${id}`)).json).data;
    expect(page.logo).toBe(`/assets/${sha(good)}.png`);
  });

  test("an SVG that could run script, or load anything, is refused; a plain one with local references passes", async () => {
    const { id } = await newPage();
    const svg = (inner: string, attrs = "") =>
      new TextEncoder().encode(
        `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="40" height="40"${attrs}>${inner}</svg>`,
      );
    const hostile: [string, Uint8Array][] = [
      ["a script element", svg("<script>alert(1)</script>")],
      ["a script in another prefix", svg('<x:script xmlns:x="http://www.w3.org/2000/svg">alert(1)</x:script>')],
      ["an event handler", svg('<rect width="1" height="1" onclick="alert(1)"/>')],
      ["an event handler on the root", svg("", ' onload="alert(1)"')],
      ["foreign content", svg('<foreignObject><iframe src="https://evil.example"></iframe></foreignObject>')],
      ["a javascript: link", svg('<a href="javascript:alert(1)"><rect width="1" height="1"/></a>')],
      ["an escaped javascript: link", svg('<a xlink:href="&#106;avascript:alert(1)"><rect width="1" height="1"/></a>')],
      ["an external image", svg('<image href="https://tracker.example/pixel.png" width="1" height="1"/>')],
      [
        "an animated link",
        svg('<a><set attributeName="href" to="javascript:alert(1)"/><rect width="1" height="1"/></a>'),
      ],
      ["a style that loads", svg('<rect width="1" height="1" style="fill:url(https://tracker.example/x)"/>')],
      ["an import", svg("<style>@import 'https://evil.example/x.css';</style>")],
      [
        "a style sheet instruction",
        new TextEncoder().encode(
          '<?xml-stylesheet href="https://evil.example/x.css"?><svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>',
        ),
      ],
      // What a denylist let through (review of 89bd0a4): each must be refused by what the file is, as parsed.
      [
        "another declared encoding, whose escapes spell <script>",
        new TextEncoder().encode(
          '<?xml version="1.0" encoding="ISO-2022-JP"?><svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><scr\u001b(Bipt>alert(1)</scr\u001b(Bipt></svg>',
        ),
      ],
      ["a script under a non-ASCII prefix", svg('<é:script xmlns:é="http://www.w3.org/2000/svg">alert(1)</é:script>')],
      [
        "an HTML document behind an <svg in a comment",
        new TextEncoder().encode(
          '<!-- <svg width="1" height="1"> --><html xmlns="http://www.w3.org/1999/xhtml"><body><form action="javascript:alert(1)"><button>Go</button></form></body></html>',
        ),
      ],
      ["HTML inside", svg('<h:img xmlns:h="http://www.w3.org/1999/xhtml" src="https://evil.example/t.png"/>')],
      [
        "a zero-padded reference to href",
        svg('<a><set attributeName="&#x0000000000068;ref" to="javascript:alert(1)"/></a>'),
      ],
      ["a CSS escape", svg("<style>rect { fill: u\\rl(https://evil.example/t.png) }</style>")],
      [
        "an image-set",
        svg('<rect width="1" height="1" style="fill: image-set(&quot;https://evil.example/t.png&quot; 1x)"/>'),
      ],
      ["an xml:base", svg('<use xml:base="https://evil.example/" href="#a"/>')],
    ];
    for (const [what, body] of hostile) {
      const res = await put(`/public/v1/status-pages/${id}/logo`, body, "image/svg+xml");
      expect(res.status, what).toBe(400);
      const error = ErrorEnvelope.parse(await res.json());
      expect(error.details?.[0]?.field).toBe("(body)");
      expect(error.message, what).toMatch(/an SVG('s root must| may not have| must)/);
    }
    const plain = svg(
      '<defs><linearGradient id="g"><stop offset="0" stop-color="#06f"/></linearGradient><circle id="c" r="5"/></defs><rect width="40" height="40" fill="url(#g)"/><use href="#c" x="20" y="20"/>',
      ' viewBox="0 0 40 40"',
    );
    expect((await put(`/public/v1/status-pages/${id}/logo`, plain, "image/svg+xml")).status).toBe(200);
    // What editors export: Inkscape's and Sodipodi's namespaces and RDF metadata, Illustrator's declaration and
    // comment, quoted url(#…), spaced href, an embedded PNG fill.
    const exported = new TextEncoder().encode(
      `<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<!-- Generator: Adobe Illustrator 27.0.0, SVG Export Plug-In -->
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"
  xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd"
  xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:cc="http://creativecommons.org/ns#" xmlns:dc="http://purl.org/dc/elements/1.1/"
  width="120" height="40" viewBox="0 0 120 40" version="1.1" inkscape:version="1.3" sodipodi:docname="logo.svg" xml:space="preserve">
  <sodipodi:namedview id="nv" pagecolor="#ffffff" inkscape:zoom="2"/>
  <metadata><rdf:RDF><cc:Work rdf:about=""><dc:format>image/svg+xml</dc:format></cc:Work></rdf:RDF></metadata>
  <defs><linearGradient id="g"><stop offset="1" stop-color="#f60"/></linearGradient>
  <style type="text/css"><![CDATA[ .a { fill: url('#g'); } ]]></style></defs>
  <g inkscape:label="Layer 1" inkscape:groupmode="layer"><rect class="a" width="40" height="40" style="fill:url( &quot;#g&quot; )"/>
  <use xlink:href=" #g"/><image width="1" height="1" href="data:image/png;base64,iVBORw0KGgo="/>
  <text x="50" y="28" font-family="Inter">Acme</text></g>
</svg>`,
    );
    const ok = await put(`/public/v1/status-pages/${id}/logo`, exported, "image/svg+xml");
    expect(ok.status, await ok.clone().text()).toBe(200);
  });

  test("a GIF frame or an ICO's PNG larger than 4096 px is refused, though the header or directory says small", async () => {
    const { id } = await newPage();
    const refusedFor = async (body: Uint8Array, type: string) => {
      const res = await put(`/public/v1/status-pages/${id}/favicon`, body, type);
      expect(res.status).toBe(400);
      return ErrorEnvelope.parse(await res.json()).message;
    };
    expect(await refusedFor(gifWithFrame(10, 10, 30_000, 30_000), "image/gif")).toMatch(/this one is 30000 x 30000/);
    expect(await refusedFor(icoWithPng(pngImage(5000, 16, undefined, false)), "image/x-icon")).toMatch(
      /this one is 5000 x 16/,
    );
    expect((await put(`/public/v1/status-pages/${id}/favicon`, gifWithFrame(16, 16, 16, 16), "image/gif")).status).toBe(
      200,
    );
    const ico = await put(`/public/v1/status-pages/${id}/favicon`, icoWithPng(pngImage(32, 32)), "image/x-icon");
    expect(ico.status).toBe(200);
    expect(PageEnvelope.parse(await ico.json()).data.favicon).toMatch(/\.ico$/);
  });

  test("a page's CSP lets in only its own images, and https images when its logo or favicon is an address", async () => {
    const plain = await newPage();
    const csp = async (slug: string) =>
      (await app.request(`/${slug}`)).headers.get("content-security-policy")?.match(/img-src [^;]*/)?.[0];
    expect(await csp(plain.slug)).toBe("img-src 'self' data:");
    const branded = await newPage({
      logo: "https://cdn.example.com/logo.svg",
      favicon: "https://icons.example.org:8443/icon.png",
    });
    // Not only their hosts: an address that redirects (https://github.com/<org>.png) must still load.
    expect(await csp(branded.slug)).toBe("img-src 'self' data: https:");
  });

  test("a page sent back as it came keeps its upload; another upload's path is refused", async () => {
    const { id } = await newPage();
    const png = pngImage(12, 12, [5, 6, 7]);
    const page = PageEnvelope.parse(
      await (await put(`/public/v1/status-pages/${id}/logo`, png, "image/png")).json(),
    ).data;
    const same = await api.patch(`/public/v1/status-pages/${id}`, { name: "Renamed", logo: page.logo, favicon: null });
    expect(same.status).toBe(200);
    expect(same.json.data.logo).toBe(page.logo);
    expect((await app.request(page.logo as string)).status).toBe(200);
    const other = await api.patch(`/public/v1/status-pages/${id}`, { favicon: `/assets/${"c".repeat(64)}.png` });
    expect(other.status).toBe(400);
    expect(other.json.details[0].field).toBe("favicon");
  });

  test("an address replaces an upload, null and DELETE remove either, and a removed image is gone", async () => {
    const { id } = await newPage();
    const png = pngImage(16, 16, [200, 30, 40]);
    const uploaded = PageEnvelope.parse(
      await (await put(`/public/v1/status-pages/${id}/logo`, png, "image/png")).json(),
    ).data.logo as string;
    const patched = await api.patch(`/public/v1/status-pages/${id}`, { logo: "https://example.com/logo.svg" });
    expect(patched.status).toBe(200);
    expect(patched.json.data.logo).toBe("https://example.com/logo.svg");
    expect((await app.request(uploaded)).status).toBe(404);
    expect((await imageRows()).filter((r) => r.page_id === id)).toEqual([]);

    await put(`/public/v1/status-pages/${id}/logo`, png, "image/png");
    const removed = await api.delete(`/public/v1/status-pages/${id}/logo`);
    expect(removed.status).toBe(200);
    expect(removed.json.data.logo).toBeNull();
    expect((await app.request(uploaded)).status).toBe(404);

    await api.patch(`/public/v1/status-pages/${id}`, { favicon: "https://example.com/icon.png" });
    expect((await api.patch(`/public/v1/status-pages/${id}`, { favicon: null })).json.data.favicon).toBeNull();
  });

  test("an address must be https, without credentials; other fields' errors name the field", async () => {
    const { id } = await newPage();
    for (const logo of [
      "http://example.com/logo.png",
      "javascript:alert(1)",
      "data:image/png;base64,AAAA",
      "https://user:secret@example.com/logo.png",
      "not a url",
      `https://example.com/${"a".repeat(2100)}`,
    ]) {
      const res = await api.patch(`/public/v1/status-pages/${id}`, { logo });
      expect(res.status, logo).toBe(400);
      expect(res.json.error).toBe("validation_failed");
      expect(res.json.details[0].field).toBe("logo");
    }
    const created = await api.post("/public/v1/status-pages", {
      name: "X",
      slug: `x-${kind.name}`,
      favicon: "ftp://x",
    });
    expect(created.status).toBe(400);
    expect(created.json.details[0].field).toBe("favicon");
  });

  test("another workspace's page, an unknown page and a malformed file name are not found", async () => {
    const { id } = await newPage();
    const other = (await seedOwner(store, "stack")).token;
    const res = await put(`/public/v1/status-pages/${id}/logo`, pngImage(4, 4), "image/png", other);
    expect(res.status).toBe(404);
    expect((await put("/public/v1/status-pages/999999/logo", pngImage(4, 4), "image/png")).status).toBe(404);
    expect((await app.request(`/assets/${"0".repeat(64)}.png`)).status).toBe(404);
    expect((await app.request("/assets/..%2F..%2Fetc%2Fpasswd")).status).toBe(404);
    // Stored as a PNG: not served under another type's name.
    const png = pngImage(4, 4, [1, 2, 3]);
    await put(`/public/v1/status-pages/${id}/logo`, png, "image/png");
    expect((await app.request(`/assets/${sha(png)}.svg`)).status).toBe(404);
  });

  test("deleting the page deletes its images", async () => {
    const { id } = await newPage();
    const png = pngImage(4, 4, [9, 9, 9]);
    const { name } = PageEnvelope.parse(
      await (await put(`/public/v1/status-pages/${id}/logo`, png, "image/png")).json(),
    ).data;
    expect((await api.delete(`/public/v1/status-pages/${id}`, { confirmName: name })).status).toBe(200);
    expect((await app.request(`/assets/${sha(png)}.png`)).status).toBe(404);
    expect((await imageRows()).filter((r) => r.page_id === id)).toEqual([]);
  });

  describe_overHttp();

  /** Over a real socket: an upload larger than the JSON limit passes the listener's guard, a larger one is refused. */
  function describe_overHttp() {
    let server: Server;
    let origin: string;
    beforeAll(async () => {
      server = createServer(listener);
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      server?.closeAllConnections();
      await new Promise((resolve) => server?.close(resolve));
    });

    test("over HTTP: a 300 KiB image is accepted (above the 64 KiB JSON limit), one over 512 KiB gets 413", async () => {
      const { id } = await newPage();
      // Random pixels do not deflate: a real PNG of about 300 KiB.
      const big = pngImage(320, 320, [0, 0, 0]);
      const noisy = new Uint8Array(big.length + 300 * 1024);
      noisy.set(big);
      // Bytes after IEND are ignored by decoders and by the check: only the size matters here.
      const upload = (body: Uint8Array) =>
        fetch(`${origin}/public/v1/status-pages/${id}/logo`, {
          method: "PUT",
          headers: { authorization: `Bearer ${token}`, "content-type": "image/png" },
          body: body as Uint8Array<ArrayBuffer>,
        });
      const ok = await upload(noisy);
      expect(ok.status).toBe(200);
      const tooLarge = await upload(new Uint8Array(MAX_IMAGE_BYTES + 1024));
      expect(tooLarge.status).toBe(413);
      // Chunked (no Content-Length): the listener counts the bytes against the same limit.
      const chunked = (body: Uint8Array) =>
        fetch(`${origin}/public/v1/status-pages/${id}/logo`, {
          method: "PUT",
          headers: { authorization: `Bearer ${token}`, "content-type": "image/png" },
          body: new ReadableStream({
            start(controller) {
              for (let at = 0; at < body.length; at += 16 * 1024) controller.enqueue(body.slice(at, at + 16 * 1024));
              controller.close();
            },
          }),
          duplex: "half",
        } as RequestInit);
      expect((await chunked(noisy)).status).toBe(200);
      expect((await chunked(new Uint8Array(MAX_IMAGE_BYTES + 1024))).status).toBe(413);
      expect(((await tooLarge.json()) as { message: string }).message).toContain(String(MAX_IMAGE_BYTES));
      // JSON keeps its own limit.
      const json = await fetch(`${origin}/public/v1/status-pages/${id}`, {
        method: "PATCH",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ description: "x".repeat(100 * 1024) }),
      });
      expect(json.status).toBe(413);
    });
  }
});
