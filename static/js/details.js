// Diagram details without hovering: clicking or focusing (Tab) a Spark, a
// cable or a memory bar of a drawing writes its details (the element's
// data-detail) into the drawing's detail line, read out by screen readers.
(function () {
  function show(event) {
    var item = event.target.closest && event.target.closest("[data-detail]");
    if (!item) return;
    var box = item.closest("[data-details]");
    var out = box && box.querySelector(".detail-line");
    if (!out) return;
    out.textContent = item.getAttribute("data-detail");
    out.hidden = false;
    var old = box.querySelector(".is-picked");
    if (old) old.classList.remove("is-picked");
    item.classList.add("is-picked");
  }
  document.addEventListener("focusin", show);
  document.addEventListener("click", show);
  document.addEventListener("keydown", function (event) {
    if ((event.key === "Enter" || event.key === " ") && event.target.matches && event.target.matches("g[data-detail]")) {
      event.preventDefault();
      show(event);
    }
  });
})();
