// Shows every <time datetime> of the page in the viewer's own time zone. The server writes the
// time in UTC (right without JavaScript); this rewrites the text and keeps the UTC instant in the
// title. A served file, never inline, so the Content-Security-Policy can forbid inline script.
(function () {
  "use strict";
  var format = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });
  function localize(root) {
    var nodes = root.querySelectorAll ? root.querySelectorAll("time[datetime][data-local]") : [];
    for (var i = 0; i < nodes.length; i++) {
      var node = nodes[i];
      var at = new Date(node.getAttribute("datetime"));
      if (isNaN(at.getTime())) continue;
      node.title = node.getAttribute("datetime");
      node.textContent = format.format(at);
      node.removeAttribute("data-local");
    }
  }
  function start() {
    localize(document);
    // Parts of the page that htmx swaps in later are localized as they arrive.
    new MutationObserver(function (records) {
      for (var i = 0; i < records.length; i++) {
        for (var j = 0; j < records[i].addedNodes.length; j++) {
          var added = records[i].addedNodes[j];
          if (added.nodeType === 1) {
            if (added.matches("time[datetime][data-local]")) localize(added.parentNode);
            else localize(added);
          }
        }
      }
    }).observe(document.body, { childList: true, subtree: true });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
