/* Small enhancements for every page; each page works without them. */
(function () {
  "use strict";

  // When the server refuses a change (400, 403, 409, 412 ...) it answers with the
  // explanation to show in place, a fragment of the page like any other answer; htmx
  // ignores 4xx answers unless told otherwise. The same happens with DEBUG on or off.
  // Anything else that fails (a whole error page, a 5xx, no answer) is announced in a
  // small alert instead of replacing the page.
  function isFragment(text) {
    return !/^\s*(<!doctype|<html)/i.test(text || "");
  }
  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail.xhr;
    if (!xhr || xhr.status < 400) {
      return;
    }
    if (xhr.status < 500 && isFragment(xhr.responseText)) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    } else {
      event.detail.shouldSwap = false;
      showFailure(xhr.status === 404 ? "That is no longer there: reload the page." :
        xhr.status === 403 ? "That was refused: reload the page and try again." :
        "Something went wrong on our side; nothing was changed. Please try again.");
    }
  });
  document.addEventListener("htmx:sendError", function () {
    showFailure("The site could not be reached; nothing was changed. Check the connection and try again.");
  });
  function showFailure(text) {
    var box = document.getElementById("request-failure");
    if (!box) {
      box = document.createElement("p");
      box.id = "request-failure";
      box.className = "request-failure";
      box.setAttribute("role", "alert");
      document.body.appendChild(box);
    }
    box.textContent = text;
  }
  document.addEventListener("htmx:beforeRequest", function () {
    var box = document.getElementById("request-failure");
    if (box) {
      box.remove();
    }
  });

  // Back and Forward never show a page as it was before the player's last change: a page
  // the browser kept in its back/forward cache is loaded again (private pages are also
  // sent with Cache-Control: no-store).
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) {
      window.location.reload();
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
