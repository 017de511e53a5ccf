// The API reference's start-up (served by docs.ts as /docs/init.HASH.js). A file of its own rather than an inline
// script, so that the page's Content-Security-Policy can allow scripts from its own origin only.
const root = document.getElementById("swagger-ui");

window.ui = window.SwaggerUIBundle({
  url: root.dataset.url,
  domNode: root,
  // The operation list and the schemas, without the standalone layout's top bar, which loads any URL typed in it.
  presets: [window.SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
  deepLinking: true,
  filter: true,
  displayRequestDuration: true,
  // Nothing leaves this origin unasked: no validator badge (it loads an image from validator.swagger.io) and no
  // configuration or document address taken from the query string.
  validatorUrl: null,
  queryConfigEnabled: false,
});
