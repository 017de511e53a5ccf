/**
 * custom-elements.json (`npm run cem`): the public element, <porchlight-status>, analyzed from its TypeScript
 * sources with the Lit plugin (`--litelement` on the command line). The hosted pages' variant (page.ts,
 * porchlight-page.ts) registers the same tag name with hydration support; it is not for embedding, so it stays out.
 * test/package.test.ts checks that the committed manifest is what this makes.
 */

/** Drops what is no part of the element's API: private members, and the event the analyzer reads off `#emit(type)`. */
function publicApiOnly() {
  return {
    name: "porchlight-public-api-only",
    packageLinkPhase({ customElementsManifest }) {
      for (const module of customElementsManifest.modules) {
        for (const declaration of module.declarations ?? []) {
          if (declaration.members) {
            declaration.members = declaration.members.filter(
              (member) => member.privacy !== "private" && !member.name.startsWith("#"),
            );
          }
          if (declaration.events) declaration.events = declaration.events.filter((event) => event.description);
        }
      }
    },
  };
}

export default {
  globs: ["components/porchlight-status/*.ts"],
  exclude: ["components/porchlight-status/page.ts", "components/porchlight-status/porchlight-page.ts"],
  // The package.json field is written by hand: the analyzer would otherwise rewrite the whole file.
  packagejson: false,
  plugins: [publicApiOnly()],
};
