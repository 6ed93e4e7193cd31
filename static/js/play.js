/* The battle screen: the state panel polls with If-None-Match; an unchanged battle answers
   304 with no body, which must not replace what is shown. */
(function () {
  "use strict";
  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail.xhr;
    if (xhr && xhr.status === 304) {
      event.detail.shouldSwap = false;
      event.detail.isError = false;
    }
    // A refused action (not yours 403, the battle ended 409) answers with the battle as
    // it stands and the reason; show it like site.js shows a 400.
    if (xhr && (xhr.status === 403 || xhr.status === 409 || xhr.status === 412) &&
        event.detail.target && event.detail.target.id === "battle-state") {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });
  // Typing the dice rolled at the table changes nothing in the odds: keep that change
  // from re-rendering the attack form (it would swap the form under the Roll button).
  document.addEventListener("change", function (event) {
    if (event.target.matches && event.target.matches('#attack input[name="dice"]')) {
      event.stopPropagation();
    }
  }, true);
  // A poll must not undo what the player is doing: skip it while a form inside the
  // state panel has focus (the undo button), and never overlap two polls.
  document.addEventListener("htmx:beforeRequest", function (event) {
    var panel = event.detail.elt;
    if (panel && panel.id === "battle-state" && event.detail.requestConfig &&
        event.detail.requestConfig.verb === "get" && panel.contains(document.activeElement) &&
        document.activeElement !== panel) {
      event.preventDefault();
    }
  });
})();
