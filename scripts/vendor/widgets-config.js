/**
 * widgets-config.js: loaded on every book page that holds widgets, before
 * @jupyter-widgets/html-manager (see nb_ipywidgets_js in _config.yml).
 * Points require.js at the widget JavaScript the book serves itself (copied from node_modules by
 * scripts/vendor_widget_js.py), so embedded widgets render with no network and no CDN.
 */
(function () {
  const here = document.currentScript.src.replace(/[^/]*$/, "");
  const manager = here + "html-manager/";
  window.__jupyter_widgets_assets_path__ = manager;
  // embed-amd.js defines these modules itself; webpack derives each one's asset (font) URL from
  // the module's require.js address, so each address must point into the vendored folder.
  const paths = { anywidget: here + "anywidget/index", "@jupyter-widgets/html-manager/dist": manager };
  for (const name of ["base", "base7", "controls", "controls7", "html-manager"]) {
    paths["@jupyter-widgets/" + name] = manager + name;
  }
  window.require.config({ paths });
})();
