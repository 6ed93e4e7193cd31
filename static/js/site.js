/* Small enhancements for every page; each page works without them. */
(function () {
  "use strict";

  // When the server refuses a change it answers 400 with the explanation to show in
  // place; htmx ignores 4xx answers unless told otherwise.
  document.addEventListener("htmx:beforeSwap", function (event) {
    if (event.detail.xhr && event.detail.xhr.status === 400) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });

  // Keyboard users keep their place: when the control they used is gone after a swap
  // (htmx keeps focus on an element whose id survives), focus the step it was in.
  var lastStep = null;
  document.addEventListener("htmx:beforeRequest", function (event) {
    var step = event.target.closest ? event.target.closest(".step") : null;
    lastStep = step ? step.id : null;
  });
  document.addEventListener("htmx:afterSettle", function () {
    var active = document.activeElement;
    if (lastStep && (!active || active === document.body)) {
      var heading = document.querySelector("#" + lastStep + " .step__title");
      if (heading) {
        heading.focus({ preventScroll: true });
      }
    }
    lastStep = null;
  });

  // The print page's "Print" button (hidden until this script can make it work).
  function setUpPrintButton() {
    var button = document.getElementById("print-button");
    if (!button) {
      return;
    }
    button.hidden = false;
    button.addEventListener("click", function () {
      window.print();
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUpPrintButton);
  } else {
    setUpPrintButton();
  }
})();
