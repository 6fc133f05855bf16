// A new assignment's time zone starts as the teacher's own: her browser's zone, when it is one
// the server knows (the form's list). Without this script the server's default (UTC) stays,
// and a form sent back with an error keeps the zone she typed (no data-browser-zone then).
(function () {
  var input = document.querySelector("input[data-browser-zone]");
  if (!input || !window.Intl) return;
  var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  var known = Array.prototype.some.call(
    document.querySelectorAll("#zones option"),
    function (option) { return option.value === zone; }
  );
  if (!known) return;
  input.value = zone;
  var note = document.getElementById("zone-note");
  if (note) note.textContent = "Your browser's time zone; change it if the class keeps another.";
})();
