// The email-verification page (/verify-email#token=agq_ev_...): the mailed link carries its token
// in the fragment, which no server sees. This script copies it into the page's form and takes it
// out of the address bar (and so out of the history); the person then confirms with the button,
// which posts the form to this origin. Without JavaScript the token can be pasted into the field.
(function () {
  "use strict";
  function start() {
    var form = document.querySelector("form[data-token-from-fragment]");
    if (form === null) return;
    var match = /(?:^#|&)token=([A-Za-z0-9_-]{1,200})/.exec(window.location.hash);
    if (match === null) return;
    var field = form.querySelector("input[name=token]");
    if (field === null) return;
    field.value = match[1];
    window.history.replaceState(null, "", window.location.pathname + window.location.search);
    var button = form.querySelector("button[type=submit]");
    if (button !== null) button.focus();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
