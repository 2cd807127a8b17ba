// Mailed links (/verify-email, /reset-password, /accept-invitation) carry their token in the URL
// fragment (#token=...), which reaches no server log or Referer. On the pages that load this file,
// it copies the token into the form's <input data-fragment-token> and takes it out of the address
// bar (and so out of the history); the person then confirms with the button, which posts the form
// to this origin. Without JavaScript the token can be pasted into the field.
(function () {
  "use strict";
  function start() {
    var field = document.querySelector("input[data-fragment-token]");
    if (field === null) return;
    var match = /(?:^#|&)token=([A-Za-z0-9_-]{1,200})/.exec(window.location.hash);
    if (match === null) return;
    field.value = match[1];
    window.history.replaceState(null, "", window.location.pathname + window.location.search);
    var button = field.form === null ? null : field.form.querySelector("button[type=submit]");
    if (button !== null) button.focus();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
