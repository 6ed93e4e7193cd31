/* Small enhancements for every page; each page works without them. */
(function () {
  "use strict";

  // When the server refuses a change (400, 403, 409, 412 ...) it answers with the
  // explanation to show in place, a fragment of the page like any other answer; htmx
  // ignores 4xx answers unless told otherwise. The same happens with DEBUG on or off.
  // Anything else that fails (a whole error page, a 5xx, no answer) is announced in a
  // small alert instead of replacing the page.
  // "1 enemy", "2 enemies": a count and its noun, as dbd_site/words.py says them.
  function counted(number, one, many) {
    return number + " " + (number === 1 ? one : (many || one + "s"));
  }

  function isFragment(text) {
    return !/^\s*(<!doctype|<html)/i.test(text || "");
  }
  // A write that carries an Idempotency-Key and got no answer from the site itself is
  // idempotent.js's to check and send again: it says what became of it.
  function checkedElsewhere(detail) {
    var config = detail.requestConfig;
    return Boolean(config && config.headers && config.headers["Idempotency-Key"]);
  }
  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail.xhr;
    if (!xhr || xhr.status < 400) {
      return;
    }
    if ([502, 503, 504].indexOf(xhr.status) !== -1 && checkedElsewhere(event.detail)) {
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
  // No answer: a write may have been made before the connection dropped, so the page
  // never says nothing was changed (a player reads that of their last tap).
  document.addEventListener("htmx:sendError", function (event) {
    if (checkedElsewhere(event.detail)) {
      return;
    }
    var config = event.detail.requestConfig;
    showFailure(config && config.verb !== "get"
      ? "The site could not be reached, so this page cannot tell whether your change was made: " +
        "reload the page once the connection is back to see."
      : "The site could not be reached. Check the connection and try again.");
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
    if (box.textContent !== text) {
      box.textContent = text; // the same words again would be announced again
    }
  }
  // A player's next request clears the alert; a panel that asks by itself ([data-poll],
  // the battle's state) does not, or the alert would flicker with every poll.
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (event.detail.elt && event.detail.elt.hasAttribute && event.detail.elt.hasAttribute("data-poll")) {
      return;
    }
    var box = document.getElementById("request-failure");
    if (box) {
      box.remove();
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

  // Back and Forward never show a page as it was before the player's last change: a page
  // the browser kept in its back/forward cache is loaded again (private pages are also
  // sent with Cache-Control: no-store).
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) {
      window.location.reload();
    }
  });

  // --- The member builder -------------------------------------------------------------
  // One step is open at a time; a closed step holds only its heading, so nothing on the
  // page can go stale: a change answers with its own step (and the card, status and
  // notice out of band), and a step is fetched as it now stands whenever it is opened.
  // Without this script the headings are links to the page with that step open.
  function stepToggle(step) {
    return step.querySelector(".step__toggle");
  }
  function markOpen(name) {
    document.querySelectorAll("#step-nav a[data-step]").forEach(function (link) {
      if (link.getAttribute("data-step") === name) {
        link.setAttribute("aria-current", "step");
      } else {
        link.removeAttribute("aria-current");
      }
    });
  }
  function closeStep(step) {
    var body = step.querySelector(".step__body");
    if (body) {
      body.remove();
    }
    step.classList.add("step--closed");
    var toggle = stepToggle(step);
    if (toggle) {
      toggle.setAttribute("aria-expanded", "false");
    }
  }
  function closeOthers(keep) {
    document.querySelectorAll(".step:not(.step--closed)").forEach(function (step) {
      if (step !== keep) {
        closeStep(step);
      }
    });
  }
  var opening = null; // the step being fetched, to bring into view once it arrives
  function openStep(step) {
    closeOthers(step);
    markOpen(step.id.replace(/^step-/, ""));
    step.setAttribute("aria-busy", "true");
    opening = step.id;
    window.htmx.ajax("GET", step.getAttribute("data-step-url"), {
      source: step,
      target: step,
      swap: "outerHTML",
    });
  }
  document.addEventListener("click", function (event) {
    if (!window.htmx || event.defaultPrevented || event.button !== 0 ||
        event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) {
      return;
    }
    var link = event.target.closest ? event.target.closest(".step__toggle, #step-nav a[data-step]") : null;
    if (!link) {
      return;
    }
    var name = link.hasAttribute("data-step") ? link.getAttribute("data-step")
      : link.getAttribute("aria-controls").replace(/^step-/, "");
    var step = document.getElementById("step-" + name);
    if (!step) {
      return;
    }
    event.preventDefault();
    if (!step.classList.contains("step--closed")) {
      if (link.classList.contains("step__toggle")) {
        closeStep(step); // its own heading closes an open step
        markOpen(null);
      } else {
        bringIntoView(step);
      }
      return;
    }
    openStep(step);
  });
  function bringIntoView(step) {
    var toggle = stepToggle(step);
    step.scrollIntoView({ block: "start" });
    if (toggle) {
      toggle.focus({ preventScroll: true });
    }
  }
  // An edit's answer: any other step left open (the "All steps" page) closes, so no
  // step shows options judged before the change.
  document.addEventListener("builder-changed", function (event) {
    var fresh = event.detail ? document.getElementById(event.detail.step) : null;
    closeOthers(fresh);
  });

  // The player stays where they are across a change: the row, slot or form they used is
  // kept at the same height on the screen (the list of what the member carries may grow
  // above it), and focus stays on their control, or moves to the step's heading when
  // that control is gone (a piece that can no longer be added has no button). An answer is
  // morphed in, so a control without an id (an entry's Remove button) may now stand for
  // another entry: focus then moves to the heading too, never to a control the player
  // did not choose.
  var anchor = null;
  function anchorOf(element) {
    var node = element.closest("[data-anchor]") || element.closest("[id]");
    if (!node) {
      return null;
    }
    return {
      selector: node.hasAttribute("data-anchor")
        ? '[data-anchor="' + node.getAttribute("data-anchor") + '"]' : "#" + CSS.escape(node.id),
      top: node.getBoundingClientRect().top,
      focus: document.activeElement && document.activeElement.id ? document.activeElement.id : null,
      control: document.activeElement,
      step: element.closest(".step") ? element.closest(".step").id : null,
    };
  }
  var lastUsed = null;
  document.addEventListener("click", function (event) {
    lastUsed = event.target.closest ? event.target.closest("button, input, select, a") : null;
  }, true);
  document.addEventListener("htmx:beforeRequest", function (event) {
    var source = event.detail.elt;
    if (!source || (source.matches && source.matches(".step"))) {
      return; // a step being opened: it is brought into view when it arrives
    }
    var used = lastUsed && source.contains(lastUsed) ? lastUsed : source;
    anchor = used.closest && used.closest(".step") ? anchorOf(used) : null;
  });
  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail.target;
    if (opening && target && target.id === opening) {
      // An outerHTML swap settles on the element it replaced, no longer in the page:
      // the step that came in is found again by its id.
      var opened = document.getElementById(opening);
      opening = null;
      if (opened) {
        bringIntoView(opened);
      }
      return;
    }
    if (!anchor) {
      return;
    }
    var kept = anchor;
    anchor = null;
    var node = document.querySelector(kept.selector) || (kept.step && document.getElementById(kept.step));
    if (node) {
      window.scrollBy(0, node.getBoundingClientRect().top - kept.top);
    }
    var active = document.activeElement;
    var unnamed = active === kept.control && !kept.focus;
    if (!active || active === document.body || unnamed) {
      var again = kept.focus && document.getElementById(kept.focus);
      var step = kept.step && document.getElementById(kept.step);
      var heading = step && step.querySelector(".step__title");
      (again || heading || document.body).focus({ preventScroll: true });
    }
  });

  // The sticky summary's height, so a step brought into view starts below it.
  function measureBar() {
    var bar = document.getElementById("builder-bar");
    if (bar) {
      document.documentElement.style.setProperty("--bar-height", bar.offsetHeight + "px");
    }
  }
  if ("ResizeObserver" in window) {
    var barWatch = new ResizeObserver(measureBar);
    var watchBar = function () {
      var bar = document.getElementById("builder-bar");
      if (bar) {
        barWatch.observe(bar);
      }
    };
    if (document.readyState === "loading") {
      document.addEventListener("DOMContentLoaded", watchBar);
    } else {
      watchBar();
    }
  }

  // Stacked tables (site.css) name each cell's column on narrow screens: cells without a
  // data-label of their own take their column's heading.
  function labelCells(root) {
    (root.querySelectorAll ? root : document).querySelectorAll("table.stack-table").forEach(function (table) {
      var heads = Array.prototype.map.call(table.querySelectorAll("thead th"), function (th) {
        return th.textContent.trim();
      });
      table.querySelectorAll("tbody tr").forEach(function (row) {
        Array.prototype.forEach.call(row.children, function (cell, i) {
          if (cell.tagName === "TD" && !cell.hasAttribute("data-label") && heads[i]) {
            cell.setAttribute("data-label", heads[i]);
          }
        });
      });
    });
  }
  document.addEventListener("htmx:load", function (event) {
    labelCells(event.detail.elt.parentNode || document);
  });

  // "Copy" buttons beside share and invitation links.
  function setUpCopyButtons(root) {
    root.querySelectorAll("button[data-copy]").forEach(function (button) {
      if (button.hasAttribute("data-ready")) {
        return;
      }
      button.setAttribute("data-ready", "");
      button.hidden = false;
      var label = button.textContent;
      button.addEventListener("click", function () {
        var field = document.getElementById(button.getAttribute("data-copy"));
        var status = button.nextElementSibling;
        if (!field) {
          return;
        }
        var done = function (ok) {
          button.textContent = ok ? "Copied" : "Press Ctrl+C to copy";
          if (status && status.classList.contains("copy-status")) {
            status.textContent = ok ? "Copied to the clipboard." : "Select the link and copy it.";
          }
          window.setTimeout(function () { button.textContent = label; }, 2000);
        };
        field.select();
        if (navigator.clipboard && window.isSecureContext) {
          navigator.clipboard.writeText(field.value).then(function () { done(true); },
            function () { done(false); });
        } else {
          var ok = false;
          try {
            ok = document.execCommand("copy");
          } catch (error) {
            ok = false;
          }
          done(ok);
        }
      });
    });
  }
  document.addEventListener("htmx:load", function (event) {
    setUpCopyButtons(event.detail.elt.parentNode || document);
  });

  // The battle form: steppers beside the counts, and the R14b check as it is filled.
  // Only a hint: the server checks the same when the battle is recorded.
  function setUpSteppers(root) {
    root.querySelectorAll(".camp-results input[type=number]").forEach(function (input) {
      if (input.hasAttribute("data-stepper")) {
        return;
      }
      input.setAttribute("data-stepper", "");
      var label = document.querySelector('label[for="' + input.id + '"]');
      var what = label ? label.textContent.trim() : "the count";
      var wrap = document.createElement("span");
      wrap.className = "stepper";
      input.parentNode.insertBefore(wrap, input);
      [["-", "One less: " + what, -1], ["+", "One more: " + what, 1]].forEach(function (spec, i) {
        var button = document.createElement("button");
        button.type = "button";
        button.className = "stepper__button";
        button.textContent = spec[0] === "-" ? "\u2212" : "+";
        button.setAttribute("aria-label", spec[1]);
        button.addEventListener("click", function () {
          var value = Math.max(0, (parseInt(input.value, 10) || 0) + spec[2]);
          input.value = String(value);
          input.dispatchEvent(new Event("input", { bubbles: true }));
        });
        if (i === 0) {
          wrap.appendChild(button);
          wrap.appendChild(input);
        } else {
          wrap.appendChild(button);
        }
      });
    });
  }
  function field(row, suffix) {
    return row.querySelector('[name$="-' + suffix + '"]');
  }
  function checkBattle() {
    var form = document.getElementById("battle-form");
    var out = document.getElementById("battle-check");
    if (!form || !out) {
      return;
    }
    var sides = Array.prototype.map.call(form.querySelectorAll(".camp-side"), function (side) {
      var enemies = 0;
      var outOfAction = 0;
      var problems = [];
      side.querySelectorAll("tbody tr").forEach(function (row) {
        var name = row.querySelector("th").firstChild.textContent.trim();
        var took = field(row, "took_part");
        var ooa = field(row, "out_of_action");
        var credited = parseInt((field(row, "enemies_out_of_action") || {}).value, 10) || 0;
        var objectives = parseInt((field(row, "objectives") || {}).value, 10) || 0;
        if (ooa && ooa.checked) {
          outOfAction += 1;
          if (took && !took.checked) {
            problems.push(name + " is Out of Action, so took part: tick “Took part”.");
          }
        }
        if (objectives > 10) {
          problems.push(name + ": objectives go from 0 to 10.");
        }
        enemies += credited;
      });
      return { name: side.getAttribute("data-side-name"), enemies: enemies, ooa: outOfAction, problems: problems };
    });
    var messages = [];
    sides.forEach(function (side, i) {
      var others = sides.reduce(function (sum, other, j) { return j === i ? sum : sum + other.ooa; }, 0);
      if (side.enemies > others) {
        messages.push(side.name + "'s members took " + counted(side.enemies, "enemy", "enemies") +
          " Out of Action, but only " + others + " of the other forces' members are marked Out of Action.");
      }
      messages = messages.concat(side.problems);
    });
    out.textContent = "";
    out.classList.toggle("battle-check--bad", messages.length > 0);
    if (sides.length && !messages.length) {
      out.textContent = "The results add up (R14b).";
      return;
    }
    if (messages.length) {
      var list = document.createElement("ul");
      messages.forEach(function (text) {
        var item = document.createElement("li");
        item.textContent = text;
        list.appendChild(item);
      });
      out.appendChild(document.createTextNode("Check before recording (R14b):"));
      out.appendChild(list);
    }
  }
  ["input", "change"].forEach(function (name) {
    document.addEventListener(name, function (event) {
      if (event.target.closest && event.target.closest("#battle-form")) {
        checkBattle();
      }
    });
  });
  document.addEventListener("htmx:load", function (event) {
    setUpSteppers(event.detail.elt.parentNode || document);
    checkBattle();
  });

  // Folded member cards (the force page): a card the player opened stays open across
  // htmx swaps and visits in this tab, the card the address points at (#member-12, as
  // the builder's way back links) opens, and printing shows every card.
  var FOLDS = "details[data-keep-open]";
  function foldKey() {
    return "open-cards:" + window.location.pathname;
  }
  function openFolds() {
    try {
      return JSON.parse(window.sessionStorage.getItem(foldKey()) || "[]");
    } catch (error) {
      return [];
    }
  }
  function restoreFolds(root) {
    var open = openFolds();
    var hash = window.location.hash.replace(/^#/, "");
    (root.querySelectorAll ? root : document).querySelectorAll(FOLDS).forEach(function (fold) {
      var key = fold.getAttribute("data-keep-open");
      if (open.indexOf(key) !== -1 || (hash && key === hash)) {
        fold.open = true;
      }
    });
  }
  document.addEventListener("toggle", function (event) {
    var fold = event.target;
    if (!fold.matches || !fold.matches(FOLDS)) {
      return;
    }
    if (fold.hasAttribute("data-print-open")) {
      if (!fold.open) {
        fold.removeAttribute("data-print-open");
      }
      return;
    }
    var key = fold.getAttribute("data-keep-open");
    var open = openFolds().filter(function (k) { return k !== key; });
    if (fold.open) {
      open.push(key);
    }
    try {
      window.sessionStorage.setItem(foldKey(), JSON.stringify(open));
    } catch (error) {
      // storage refused (private mode, full): cards just start folded next time
    }
  }, true);
  document.addEventListener("htmx:load", function (event) {
    restoreFolds(event.detail.elt.parentNode || document);
  });
  // Printing opens the folded cards and closes them again after; their toggles are not
  // the player's doing, so they are not remembered.
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll(FOLDS + ":not([open])").forEach(function (fold) {
      fold.setAttribute("data-print-open", "");
      fold.open = true;
    });
  });
  window.addEventListener("afterprint", function () {
    document.querySelectorAll(FOLDS + "[data-print-open]").forEach(function (fold) {
      fold.open = false;
    });
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
  // The site's menu (base.html): wide screens show its links in a row through CSS; a
  // browser that cannot show a closed <details>'s content has it opened there instead.
  // On a phone, Escape or a tap outside closes the open menu.
  function setUpMenu() {
    var menu = document.querySelector(".site-menu");
    if (!menu) {
      return;
    }
    if (window.CSS && CSS.supports && !CSS.supports("selector(::details-content)")) {
      var wide = window.matchMedia("(min-width: 48rem)");
      var follow = function () { menu.open = wide.matches; };
      follow();
      wide.addEventListener("change", follow);
    }
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && menu.open && menu.contains(document.activeElement)) {
        menu.open = false;
        menu.querySelector("summary").focus();
      }
    });
    document.addEventListener("click", function (event) {
      var toggle = menu.querySelector("summary");
      if (menu.open && !menu.contains(event.target) && getComputedStyle(toggle).display !== "none") {
        menu.open = false;
      }
    });
  }
  function setUp() {
    setUpMenu();
    setUpPrintButton();
    setUpCopyButtons(document);
    labelCells(document);
    setUpSteppers(document);
    checkBattle();
    restoreFolds(document);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
})();
