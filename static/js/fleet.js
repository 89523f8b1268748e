// Spark Fleet's page behaviours shared by many pages, in a file so the
// Content-Security-Policy can forbid inline scripts (page-specific ones sit
// next to it: autosubmit.js, booking-form.js). Each behaviour is switched on by a data attribute:
//   data-confirm="question"  on a form or button: ask before submitting
//   data-busy="text"          on a form: disable its submit button and say so while it posts
//   data-select-on-click      on an input: select its text when clicked
//   data-copy="element-id"    on a button: copy that element's text
//   data-back                 on a link: go back in the history
//   data-tz-hint="zone"       on an element: say which zone the browser is in, when it differs
(function () {
  "use strict";

  document.addEventListener("submit", function (event) {
    var form = event.target;
    var question = form.getAttribute("data-confirm");
    var button = event.submitter;
    if (!question && button) question = button.getAttribute("data-confirm");
    if (question && !window.confirm(question)) { event.preventDefault(); return; }
    var busy = form.getAttribute("data-busy");
    if (busy) {
      var submit = form.querySelector("button[type=submit]");
      if (submit) { submit.disabled = true; submit.textContent = busy; }
    }
  }, true);

  function copy(button, text) {
    var label = button.textContent;
    // data-copied stays: the label reverts after 1.5 s, the fact that it was copied does not
    var done = function () { button.textContent = "Copied"; button.setAttribute("data-copied", "true"); setTimeout(function () { button.textContent = label; }, 1500); };
    var fallback = function () {  // no clipboard API (plain http) or permission refused
      var area = document.createElement("textarea"); area.value = text; document.body.appendChild(area); area.select();
      document.execCommand("copy"); area.remove(); done();
    };
    if (navigator.clipboard && window.isSecureContext) {
      // a permission prompt nobody answers leaves the promise pending: fall back after a second
      var settled = false;
      var once = function (f) { return function () { if (!settled) { settled = true; f(); } }; };
      navigator.clipboard.writeText(text).then(once(done), once(fallback));
      setTimeout(once(fallback), 1000);
    }
    else { fallback(); }
  }

  document.addEventListener("click", function (event) {
    var el = event.target.closest ? event.target : null;
    if (!el) return;
    var copyButton = el.closest("[data-copy]");
    if (copyButton) {
      var source = document.getElementById(copyButton.getAttribute("data-copy"));
      if (source) copy(copyButton, source.innerText.trim());
      return;
    }
    if (el.closest("[data-back]")) { event.preventDefault(); window.history.back(); return; }
    if (el.matches("input[data-select-on-click]")) el.select();
  });

  function tzHint() {
    document.querySelectorAll("[data-tz-hint]").forEach(function (el) {
      var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
      if (zone && zone !== el.getAttribute("data-tz-hint")) el.textContent = "Your browser says " + zone + ".";
    });
  }

  document.addEventListener("DOMContentLoaded", tzHint);
})();
