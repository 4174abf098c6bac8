/**
 * widgets-config.js: loaded on every book page before @jupyter-widgets/html-manager.
 * Points require.js at the widget JavaScript the book serves itself (copied from node_modules by
 * scripts/vendor_widget_js.py), so embedded widgets render with no network and no CDN.
 */
(function () {
  const here = document.currentScript.src.replace(/[^/]*$/, "");
  window.__jupyter_widgets_assets_path__ = here + "html-manager/";
  window.require.config({
    paths: {
      anywidget: here + "anywidget/index",
    },
  });
})();
