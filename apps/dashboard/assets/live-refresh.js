// Live regions: an element with data-live polls its own page with htmx (hx-trigger "every 5s")
// and swaps itself in place, so scroll and the rest of the page stay. This script pauses the
// polling while the tab is hidden and while the page's "Pause live updates" button is pressed
// (its aria-pressed says so; a new page starts unpaused). A served file, never inline.
(function () {
  "use strict";
  function paused() {
    return document.hidden || document.querySelector("button[data-live-toggle][aria-pressed='true']") !== null;
  }
  function start() {
    document.addEventListener("htmx:before:request", function (event) {
      var elt = event.target;
      if (elt instanceof Element && elt.hasAttribute("data-live") && paused()) event.preventDefault();
    });
    document.addEventListener("click", function (event) {
      var button = event.target instanceof Element ? event.target.closest("button[data-live-toggle]") : null;
      if (button === null) return;
      var nowPaused = button.getAttribute("aria-pressed") !== "true";
      button.setAttribute("aria-pressed", String(nowPaused));
      button.textContent = nowPaused ? "Resume live updates" : "Pause live updates";
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
