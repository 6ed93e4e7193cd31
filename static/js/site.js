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
  var requestsMade = 0;
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (event.target.matches && event.target.matches(".step")) {
      return; // a stale step refreshing itself (below), not something the user did
    }
    var step = event.target.closest ? event.target.closest(".step") : null;
    lastStep = step ? step.id : null;
    if (step) {
      step.setAttribute("data-last-request", String(++requestsMade));
    }
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

  // The member builder answers a change with the step that changed (and the card); the
  // other steps may now be out of date (a statistic re-prices everything after it), so
  // each is fetched again when it next comes into view. Without this script every change
  // reloads the whole page, so nothing is ever stale.
  var staleSteps = null;
  document.addEventListener("builder-changed", function (event) {
    if (!window.htmx || !("IntersectionObserver" in window)) {
      return;
    }
    if (staleSteps) {
      staleSteps.disconnect();
    }
    var fresh = event.detail ? event.detail.step : null;
    staleSteps = new IntersectionObserver(function (entries, observer) {
      entries.forEach(function (entry) {
        if (!entry.isIntersecting) {
          return;
        }
        var step = entry.target;
        observer.unobserve(step);
        step.setAttribute("data-refresh-after", String(requestsMade));
        window.htmx.ajax("GET", step.getAttribute("data-step-url"), {
          source: step,
          target: step,
          swap: "outerHTML",
        });
      });
    });
    document.querySelectorAll(".step[data-step-url]").forEach(function (step) {
      if (step.id !== fresh) {
        staleSteps.observe(step);
      }
    });
  });

  // A refresh never swaps a step out from under the player: not while they work in it,
  // and not once they have changed something there since it was asked for (that answer
  // is newer). What they submit there comes back fresh anyway.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var config = event.detail.requestConfig;
    var step = config ? config.elt : null;
    if (!step || !step.matches || !step.matches(".step")) {
      return;
    }
    var asked = Number(step.getAttribute("data-refresh-after") || 0);
    var changed = Number(step.getAttribute("data-last-request") || 0);
    if (!step.isConnected || step.contains(document.activeElement) || changed > asked) {
      event.detail.shouldSwap = false;
    }
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
