// A <select data-autosubmit> sends its form as soon as it changes (the button-less filters).
document.querySelectorAll("select[data-autosubmit]").forEach(function (select) {
  select.addEventListener("change", function () { select.form.submit(); });
});
