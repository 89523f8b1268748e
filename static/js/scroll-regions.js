// A card or table wrapper that scrolls sideways (a wide table on a phone) can be
// reached and scrolled with the keyboard: it gets tabindex="0" while it scrolls.
(function () {
  var SELECTOR = ".card, .chartcard, .tablewrap, #rows, .tl-scroll, .topo-svg, .mem-svg, pre.code";
  function mark() {
    document.querySelectorAll(SELECTOR).forEach(function (el) {
      var scrolls = el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1 && el.matches("pre.code");
      if (scrolls && !el.hasAttribute("tabindex")) {
        el.setAttribute("tabindex", "0");
        el.dataset.scrollRegion = "1";
      } else if (!scrolls && el.dataset.scrollRegion) {
        el.removeAttribute("tabindex");
        delete el.dataset.scrollRegion;
      }
    });
  }
  mark();
  window.addEventListener("resize", mark);
  document.body.addEventListener("htmx:afterSettle", mark);
})();
