// The run page's folded sections (<details id=...>: more charts, other figures, the lineage
// ids, the plots) stay as the admin left them when a live push replaces the section around
// them: htmx's out-of-band swap would otherwise bring them back closed at every step.
document.addEventListener("htmx:oobBeforeSwap", function (evt) {
  var detail = evt.detail;
  if (!detail || !detail.target || !detail.fragment || !detail.fragment.querySelector) return;
  detail.target.querySelectorAll("details[id][open]").forEach(function (old) {
    var fresh = detail.fragment.querySelector("#" + CSS.escape(old.id));
    if (fresh) fresh.setAttribute("open", "");
  });
});
