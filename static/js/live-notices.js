// A live socket the server closed with a reason of its own (webapp/core/sockets.py: 4429,
// too many live pages open for this user) says so on the page: the htmx websocket extension
// does not reconnect after such a code, and the page would otherwise just stop updating.
document.addEventListener("htmx:wsClose", function (evt) {
  var closed = evt.detail && evt.detail.event;
  if (!closed || closed.code !== 4429) return;
  var box = document.getElementById("page-errors");
  if (!box) return;
  box.textContent = closed.reason || "Live updates are off on this page: too many pages open.";
});
