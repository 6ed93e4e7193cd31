/* The battle screen: the state panel polls with If-None-Match; an unchanged battle answers
   304 with no body, which must not replace what is shown. */
(function () {
  "use strict";
  document.addEventListener("htmx:beforeSwap", function (event) {
    if (event.detail.xhr && event.detail.xhr.status === 304) {
      event.detail.shouldSwap = false;
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
