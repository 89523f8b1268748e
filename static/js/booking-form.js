// Booking form: mark the Sparks the availability check found taken, so the boxes to untick stand out
// (after each live check, and on a form sent back refused).
function markHeldSparks() {
  var held = document.getElementById("held-nodes");
  var names = held ? held.dataset.nodes.trim().split(/\s+/) : [];
  document.querySelectorAll("#nodes .bk-node").forEach(function (chip) {
    chip.classList.toggle("held", names.indexOf(chip.textContent.trim().split(/\s+/)[0]) >= 0);
  });
}
document.body.addEventListener("htmx:afterSettle", markHeldSparks);
markHeldSparks();
