// "Copy" buttons: <button data-copy-from="ID"> copies the text of the element with that id to the
// clipboard and says so. The buttons are hidden until this script runs (class js-only), so a page
// without JavaScript shows only the text to select.
(function () {
  "use strict";
  function start() {
    document.documentElement.classList.add("js");
    document.addEventListener("click", function (event) {
      var button = event.target instanceof Element ? event.target.closest("button[data-copy-from]") : null;
      if (button === null) return;
      var source = document.getElementById(button.getAttribute("data-copy-from"));
      if (source === null) return;
      var status = button.parentNode.querySelector("[data-copy-status]");
      navigator.clipboard.writeText(source.textContent.trim()).then(
        function () { if (status) status.textContent = "Copied."; },
        function () { if (status) status.textContent = "Copy failed: select the text and copy it."; }
      );
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
