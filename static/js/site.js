/* Small enhancements for every page; each page works without them. */
(function () {
  "use strict";

  // When the server refuses a change it answers 400 (or 409: the force changed since
  // the page was loaded) with the explanation to show in place; htmx ignores 4xx
  // answers unless told otherwise.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var status = event.detail.xhr && event.detail.xhr.status;
    if (status === 400 || status === 409) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });

  // A change says which version of the force it was made on (the status panel holds
  // the latest, swapped in by every answer), so one made on a stale page is refused
  // with the fresh state instead of overwriting a change made meanwhile.
  document.addEventListener("htmx:configRequest", function (event) {
    var holder = document.querySelector("[data-force-version]");
    if (holder && event.detail.verb === "post") {
      event.detail.headers["X-Force-Version"] = holder.getAttribute("data-force-version");
    }
  });

  // Keyboard users keep their place: when the control they used is gone after a swap
  // (htmx keeps focus on an element whose id survives), focus the step it was in.
  var lastStep = null;
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (event.target.matches && event.target.matches(".step")) {
      return; // a stale step refreshing itself (below), not something the user did
    }
    var step = event.target.closest ? event.target.closest(".step") : null;
    lastStep = step ? step.id : null;
    touch(step);
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
  // Each step remembers when the player last touched it (typed, chose, submitted), in
  // the order of a counter, and when its refresh was asked for.
  var touches = 0;
  function touch(step) {
    if (step) {
      step.setAttribute("data-touched", String(++touches));
    }
  }
  ["input", "change"].forEach(function (name) {
    document.addEventListener(name, function (event) {
      touch(event.target.closest ? event.target.closest(".step") : null);
    });
  });
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
        step.setAttribute("data-refresh-asked", String(touches));
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
  // and not once they have touched it since the refresh was asked for (their input would
  // be lost, or their own answer is newer). What they submit there comes back fresh.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var config = event.detail.requestConfig;
    var step = config ? config.elt : null;
    if (!step || !step.matches || !step.matches(".step")) {
      return;
    }
    var asked = Number(step.getAttribute("data-refresh-asked") || 0);
    var touched = Number(step.getAttribute("data-touched") || 0);
    if (!step.isConnected || step.contains(document.activeElement) || touched > asked) {
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
