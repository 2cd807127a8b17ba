// Mailed links carry their token in the URL fragment (#token=...), which never reaches a server log
// or a Referer. On a page with <input data-fragment-token>, this script copies the token into that
// field and takes it out of the address bar. Without JavaScript the page shows a field to paste it.
(function () {
  "use strict";
  function start() {
    var field = document.querySelector("input[data-fragment-token]");
    if (field === null) return;
    var match = /(?:^#|&)token=([^&]*)/.exec(window.location.hash);
    if (match === null) return;
    field.value = decodeURIComponent(match[1]);
    var manual = document.querySelector("[data-token-manual]");
    if (manual !== null) manual.hidden = true;
    history.replaceState(null, "", window.location.pathname + window.location.search);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
