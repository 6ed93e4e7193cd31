/* The battle screen. The state panel (#battle-state) asks the server for news with
   If-None-Match: an unchanged battle answers 304 with no body, which must not replace what
   is shown; a changed one answers with the panel as it now stands. */
(function () {
  "use strict";

  // --- How often the panel asks ------------------------------------------------------------
  // While the battle is being played (a change seen, or this screen touched, within the last
  // minute) every half second, so the other phone's change shows within a second; then less
  // and less often; never while the page is hidden (asked at once when it is shown again);
  // never once the battle has ended. A poll that cannot reach the site waits longer each
  // time, up to half a minute.
  var PLAYING_MS = 500;
  var PLAYING_FOR_MS = 60 * 1000;
  var QUIET_MS = 2000;
  var RESTING_AFTER_MS = 10 * 60 * 1000;
  var RESTING_MS = 5000;
  var FAILING_MAX_MS = 30 * 1000;

  var timer = null;
  var asking = false; // a poll is waiting for its answer
  var lastNews = Date.now();
  var failures = 0;

  function panel() {
    return document.getElementById("battle-state");
  }
  function wait() {
    if (failures) {
      return Math.min(FAILING_MAX_MS, 1000 * Math.pow(2, failures - 1));
    }
    var quiet = Date.now() - lastNews;
    return quiet < PLAYING_FOR_MS ? PLAYING_MS : quiet < RESTING_AFTER_MS ? QUIET_MS : RESTING_MS;
  }
  // The panel's data-poll says what it is doing: "asking", the ms until it asks, or
  // "off" (hidden, ended, gone).
  function schedule(ms) {
    window.clearTimeout(timer);
    timer = null;
    var state = panel();
    if (!state || asking) {
      return; // a poll waiting for its answer schedules the next itself
    }
    // An ended battle asks no more; nor a panel that says the battle is gone (a spectator
    // link withdrawn, a battle deleted: the poll's 404 brings it, play/gone.html).
    var status = state.getAttribute("data-status");
    if (document.hidden || status === "ended" || status === "gone") {
      state.setAttribute("data-poll", "off");
      return;
    }
    state.setAttribute("data-poll", String(ms));
    timer = window.setTimeout(poll, ms);
  }
  function answered(ok) {
    asking = false;
    failures = ok ? 0 : failures + 1;
    schedule(wait());
  }
  function poll() {
    timer = null;
    var state = panel();
    if (!state || !window.htmx || asking) {
      return;
    }
    // A poll must not undo what the player is typing: none while a field of the panel
    // (the initiative dice) or of a prompt (the transfer) has focus. A button tapped keeps
    // the focus after its answer, and stops nothing.
    var prompts = document.getElementById("prompts");
    var active = document.activeElement;
    var typing = active && active.matches && active.matches("input, select, textarea");
    if (typing && (state.contains(active) || (prompts && prompts.contains(active)))) {
      schedule(wait());
      return;
    }
    asking = true;
    state.setAttribute("data-poll", "asking");
    // The panel's own hx-get and hx-headers (its version); the promise settles once the
    // answer is in (or was a 304), whatever became of the panel meanwhile.
    window.htmx.ajax("GET", state.getAttribute("hx-get"), {
      source: state, target: state, swap: "morph:outerHTML",
    }).then(function () { answered(true); }, function () { answered(false); });
  }
  function news() {
    lastNews = Date.now();
  }

  document.addEventListener("htmx:configRequest", function (event) {
    // An answer to the panel (a poll, an action, an undo) brings the open log fold only
    // the lines after those it shows (its key); a closed fold, none.
    var log = document.getElementById("log");
    var shows = document.getElementById("log-key");
    if (event.detail.target && event.detail.target.id === "battle-state" &&
        log && log.open && shows) {
      event.detail.headers["Log-After"] = shows.getAttribute("data-shows");
    }
    // It sends a card the page shows as it is empty, keyed (below): the keys it shows; an
    // action's answer the same for the sheet's choices (a poll has no sheet).
    if (event.detail.target && event.detail.target.id === "battle-state") {
      var keys = [];
      document.querySelectorAll(".play-figure[data-key]:not([data-same])").forEach(
        function (card) { keys.push(card.getAttribute("data-key")); });
      if (keys.length) {
        event.detail.headers["Cards-Shown"] = keys.join(" ");
      }
      var choices = document.querySelector("#sheet-body[data-key]:not([data-same])");
      if (choices && choices.getAttribute("data-key") && event.detail.verb !== "get") {
        event.detail.headers["Choices-Shown"] = choices.getAttribute("data-key");
      }
    }
    if (event.target && event.target.id === "battle-state" && event.detail.verb === "get") {
      // The poll needs its If-None-Match alone: a GET wants no CSRF token, and the
      // answer does not depend on htmx's own headers. Fewer bytes, many times an hour.
      ["X-CSRFToken", "HX-Current-URL", "HX-Target", "HX-Trigger", "HX-Request"].forEach(
        function (name) { delete event.detail.headers[name]; });
    }
  });
  document.addEventListener("htmx:afterSwap", function (event) {
    if (event.detail.target && event.detail.target.id === "battle-state") {
      news(); // the battle moved on: a poll's answer, or this player's own action
    }
  });
  ["click", "keydown", "touchstart"].forEach(function (name) {
    document.addEventListener(name, function () {
      var wasQuiet = wait() > PLAYING_MS;
      news();
      if (wasQuiet && !failures) {
        schedule(0); // back from a quiet spell: see where the battle stands now
      }
    }, { capture: true, passive: true });
  });
  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) {
      news();
    }
    schedule(0); // hidden: the timer is cleared and nothing is asked
  });
  // Polling starts once htmx has taken the page in.
  document.addEventListener("htmx:load", function (event) {
    var state = panel();
    if (state && !timer && event.detail.elt.contains(state)) {
      schedule(wait());
    }
  });

  // The version an answer shows (its ETag, W/"<version>"), or NaN.
  function versionOf(xhr) {
    var match = /(\d+)/.exec(xhr.getResponseHeader("ETag") || "");
    return match ? Number(match[1]) : NaN;
  }
  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail.xhr;
    if (xhr && xhr.status === 304) {
      event.detail.shouldSwap = false;
      event.detail.isError = false;
    }
    // A poll sent before this phone's own action may be answered after it: it shows an
    // older battle than the one on the screen, and is not swapped in.
    var state = panel();
    if (xhr && xhr.status === 200 && event.detail.requestConfig &&
        event.detail.requestConfig.verb === "get" && state &&
        event.detail.target === state &&
        versionOf(xhr) < Number(state.getAttribute("data-version"))) {
      event.detail.shouldSwap = false;
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
  // from re-rendering the sheet (or a prompt's odds) under the Roll button.
  document.addEventListener("change", function (event) {
    if (event.target.matches && event.target.matches('#dock input[name="dice"]')) {
      event.stopPropagation();
    }
  }, true);

  // --- Cards sent empty: the page keeps its own -------------------------------------------
  // An answer sends a card (or the sheet's choices) the page showed when it asked (the same
  // data-key) as an empty one marked data-same: the morph keeps the page's own. Should the
  // page's card have changed since it asked (another answer came in between), it is kept
  // too, and the next poll asks for the whole panel at once.
  var missing = false;
  // A part kept is as the markup it was sent as: each field back to what that markup says
  // (the dice box empty, a tick the markup has not unticked), as the morph would do.
  function asSent(part) {
    part.querySelectorAll("input, select, textarea").forEach(function (field) {
      if (field.type === "checkbox" || field.type === "radio") {
        field.checked = field.defaultChecked;
      } else if (field.tagName === "SELECT") {
        var chosen = -1;
        Array.prototype.forEach.call(field.options, function (option, i) {
          if (option.defaultSelected) { chosen = i; }
        });
        field.selectedIndex = chosen === -1 ? 0 : chosen;
      } else {
        field.value = field.defaultValue;
      }
    });
  }
  if (window.Idiomorph) {
    window.Idiomorph.defaults.callbacks.beforeNodeMorphed = function (old, fresh) {
      if (fresh.nodeType !== 1 || !fresh.hasAttribute("data-same")) {
        return true;
      }
      if (old.nodeType !== 1) {
        return true;
      }
      // Changed on the page since it asked (another answer came in between): the page's
      // own is newer, kept; for a card the next poll asks for the whole panel.
      if (old.getAttribute("data-key") !== fresh.getAttribute("data-key") &&
          old.id !== "sheet-body") {
        missing = true;
      }
      asSent(old);
      return false;
    };
  }
  document.addEventListener("htmx:afterSettle", function () {
    var state = panel();
    if (missing && state) {
      missing = false;
      state.setAttribute("hx-headers", '{"If-None-Match": "W/\\"0\\""}');
      schedule(0);
    }
  });

  // --- The dock: prompts kept while unchanged, cards to tap, room below the page --------
  // A prompt the player may be filling in (the Friendship transfer) is swapped only when
  // the decisions waiting changed: an answer or a poll that brings the same ones keeps it
  // as it is, with what was typed (also after a refusal).
  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    var target = event.detail.target;
    var fresh = event.detail.fragment && event.detail.fragment.firstElementChild;
    if (target && target.id === "prompts" && fresh && fresh.id === "prompts" &&
        fresh.getAttribute("data-key") === target.getAttribute("data-key") &&
        target.getAttribute("data-key")) {
      event.detail.shouldSwap = false;
    }
  });
  // While a form of the dock chooses a target, the cards it may choose can be tapped:
  // tapping one picks it (as choosing it in the list does, odds included).
  function targetSelect() {
    return document.querySelector("#sheet [data-target-select]") ||
      document.querySelector("#prompts [data-target-select]");
  }
  function markCards() {
    var select = targetSelect();
    var values = {};
    if (select) {
      Array.prototype.forEach.call(select.options, function (o) {
        if (o.value) { values[o.value] = true; }
      });
    }
    var sheetFigure = document.querySelector('#sheet input[name="figure"]');
    document.querySelectorAll(".play-figure[data-figure]").forEach(function (card) {
      var id = card.getAttribute("data-figure");
      card.classList.toggle("play-figure--pickable", Boolean(values[id]));
      card.classList.toggle("play-figure--picked", Boolean(select && values[id] && select.value === id));
      card.classList.toggle("play-figure--chosen", Boolean(sheetFigure && sheetFigure.value === id));
    });
  }
  document.addEventListener("click", function (event) {
    var card = event.target.closest ? event.target.closest(".play-figure--pickable") : null;
    var select = targetSelect();
    if (!card || !select || event.defaultPrevented) {
      return;
    }
    event.preventDefault();
    var id = card.getAttribute("data-figure");
    if (select.value !== id) {
      select.value = id;
      select.dispatchEvent(new Event("change", { bubbles: true }));
    }
    markCards();
  });
  document.addEventListener("change", function (event) {
    if (event.target.matches && event.target.matches("[data-target-select]")) {
      markCards();
    }
  });
  document.addEventListener("htmx:afterSettle", markCards);
  document.addEventListener("htmx:oobAfterSwap", markCards);
  // The page keeps room below the cards for the dock, so the last card can be scrolled
  // above it.
  function measureDock() {
    var dock = document.getElementById("dock");
    document.documentElement.style.setProperty(
      "--dock-height", (dock ? dock.offsetHeight : 0) + "px");
  }
  function watchDock() {
    markCards();
    measureDock();
    if ("ResizeObserver" in window) {
      var watcher = new ResizeObserver(measureDock);
      var dock = document.getElementById("dock");
      if (dock) {
        watcher.observe(dock);
      }
      document.addEventListener("htmx:oobAfterSwap", function (event) {
        var fresh = document.getElementById("dock");
        if (fresh && event.detail.target && event.detail.target.id === "dock") {
          watcher.observe(fresh);
          measureDock();
        }
      });
    }
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", watchDock);
  } else {
    watchDock();
  }
})();
