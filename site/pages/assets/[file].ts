import type { APIRoute, GetStaticPaths } from "astro";
import { siteData } from "../../data.ts";

/** The uploaded logos and favicons the public pages show, at the paths the server serves them (/assets/…). */
export const getStaticPaths: GetStaticPaths = async () =>
  (await siteData()).images.map((image) => ({
    params: { file: image.path.slice("/assets/".length) },
    props: { image },
  }));

export const GET: APIRoute = ({ props }) =>
  new Response(props.image.bytes, { headers: { "content-type": props.image.contentType } });
