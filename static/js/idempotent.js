/* Writes that survive a lost answer (docs/idempotency.md).

   Inside an element marked data-idempotent, each write htmx sends when a control is used
   (a submit or a click) carries an Idempotency-Key of its own. When no answer comes back
   (the connection dropped, or a gateway said 502-504), the site may or may not have done
   it: the screen says it is checking, sends the very same request with the same key again
   once the connection is back, and shows that answer. The server does the write at most
   once and answers a repeat as the first time (Idempotent-Replayed: true), so the player
   learns what happened and nothing is done twice. Unanswered writes are sent again one at
   a time, oldest first.

   A page opts in by marking the part of the page whose writes the server accepts keys for
   (those views use idempotency.decorators.idempotent). */
(function () {
  "use strict";

  var HEADER = "Idempotency-Key";
  var RETRY_FIRST_MS = 1000;
  var RETRY_MAX_MS = 30 * 1000;
  var LOST = [502, 503, 504]; // a gateway's answer: the site itself may have done it

  var waiting = []; // writes without an answer: {key, verb, path, body, target, swap}
  var timer = null;
  var tries = 0;
  var sending = null; // the write sent again, until its answer

  function newKey() {
    if (window.crypto && window.crypto.randomUUID) {
      return window.crypto.randomUUID();
    }
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes); // also where randomUUID is not (plain http)
    return Array.prototype.map.call(bytes, function (b) {
      return (b + 256).toString(16).slice(1);
    }).join("");
  }
  function keyOf(config) {
    return config && config.headers ? config.headers[HEADER] : undefined;
  }
  function waitingFor(key) {
    for (var i = 0; key && i < waiting.length; i += 1) {
      if (waiting[i].key === key) {
        return waiting[i];
      }
    }
    return null;
  }
  function copyOf(formData) {
    var copy = new FormData();
    formData.forEach(function (value, name) { copy.append(name, value); });
    return copy;
  }

  // --- What the player is told ----------------------------------------------------------
  // One status line, kept in view at the bottom of the screen and read out politely; it
  // changes only when there is news (no alert re-announced while offline).
  function say(text) {
    var box = document.getElementById("write-status");
    if (!box) {
      box = document.createElement("div");
      box.id = "write-status";
      box.className = "write-status";
      box.setAttribute("role", "status");
      box.setAttribute("aria-live", "polite");
      var words = document.createElement("p");
      words.className = "write-status__text";
      var close = document.createElement("button");
      close.type = "button";
      close.className = "write-status__close";
      close.textContent = "\u00d7";
      close.setAttribute("aria-label", "Close this message");
      close.addEventListener("click", function () { box.hidden = true; });
      box.appendChild(words);
      box.appendChild(close);
      document.body.appendChild(box);
    }
    var line = box.querySelector(".write-status__text");
    if (line.textContent !== text) {
      line.textContent = text;
    }
    box.hidden = false;
    box.setAttribute("data-state", waiting.length ? "checking" : "checked");
  }
  function checking() {
    say(waiting.length > 1
      ? "No answer came for your last " + waiting.length + " changes: the connection dropped. " +
        "Checking whether the site made them: each is sent again, once, when the connection is back."
      : "No answer came: the connection dropped. Checking whether the site made your change: " +
        "it is sent again, once, when the connection is back.");
  }

  // --- Keys ------------------------------------------------------------------------------
  document.addEventListener("htmx:configRequest", function (event) {
    var detail = event.detail;
    if (detail.verb === "get") {
      return;
    }
    var again = waitingFor(keyOf(detail));
    if (again) {
      detail.parameters = again.body; // the very same request, whatever the form now holds
      return;
    }
    var used = detail.triggeringEvent && /^(submit|click)$/.test(detail.triggeringEvent.type);
    var area = detail.elt && detail.elt.closest ? detail.elt.closest("[data-idempotent]") : null;
    if (used && area) {
      detail.headers[HEADER] = newKey();
    }
  });
  // A write sent again is not asked about again ("Undo the last action?").
  document.addEventListener("htmx:confirm", function (event) {
    var etc = event.detail.etc;
    if (etc && etc.headers && waitingFor(etc.headers[HEADER])) {
      event.preventDefault();
      event.detail.issueRequest(true);
    }
  });
  // A new write begins: the last news has been read.
  document.addEventListener("htmx:beforeRequest", function (event) {
    var config = event.detail.requestConfig;
    var box = document.getElementById("write-status");
    if (box && !waiting.length && keyOf(config) && !sending) {
      box.hidden = true;
    }
  });

  // --- No answer -------------------------------------------------------------------------
  function lost(config, elt) {
    var key = keyOf(config);
    if (!waitingFor(key)) {
      var holder = elt && elt.closest ? elt.closest("[hx-swap]") : null;
      var target = config.target;
      waiting.push({
        key: key,
        verb: config.verb,
        path: config.path,
        body: copyOf(config.formData),
        target: target && target.id ? "#" + target.id : target,
        swap: holder ? holder.getAttribute("hx-swap") : window.htmx.config.defaultSwapStyle,
      });
    }
    sending = null;
    checking();
    later();
  }
  document.addEventListener("htmx:sendError", function (event) {
    if (keyOf(event.detail.requestConfig)) {
      lost(event.detail.requestConfig, event.detail.elt);
    }
  });
  document.addEventListener("htmx:timeout", function (event) {
    if (keyOf(event.detail.requestConfig)) {
      lost(event.detail.requestConfig, event.detail.elt);
    }
  });
  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail.xhr;
    var config = event.detail.requestConfig;
    if (xhr && LOST.indexOf(xhr.status) !== -1 && keyOf(config)) {
      event.detail.shouldSwap = false;
      event.detail.isError = false;
      lost(config, event.detail.elt);
    }
  });

  // --- Sending again ---------------------------------------------------------------------
  function later() {
    window.clearTimeout(timer);
    tries += 1;
    // Offline: the "online" event sends it. Online but unreachable: try now and then.
    timer = window.setTimeout(sendNext, Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * Math.pow(2, tries - 1)));
  }
  function sendNext() {
    timer = null;
    if (sending || !waiting.length || !window.htmx) {
      return;
    }
    if (navigator.onLine === false) {
      return;
    }
    var write = waiting[0];
    var target = typeof write.target === "string" ? document.querySelector(write.target)
      : (write.target && document.body.contains(write.target) ? write.target : null);
    sending = write;
    var headers = {};
    headers[HEADER] = write.key;
    // An extension's swap ("morph:outerHTML") is found from the request's source: the
    // target names it when the control that sent the write has gone.
    var extended = target && write.swap && write.swap.indexOf(":") !== -1;
    window.htmx.ajax(write.verb, write.path, {
      source: extended ? target : document.body,
      target: target || document.body,
      swap: target ? write.swap : "none",
      headers: headers,
    });
  }
  window.addEventListener("online", function () {
    tries = 0;
    sendNext();
  });

  // --- The answer ------------------------------------------------------------------------
  document.addEventListener("htmx:afterRequest", function (event) {
    var xhr = event.detail.xhr;
    var key = keyOf(event.detail.requestConfig);
    var write = waitingFor(key);
    if (!write || !xhr || !xhr.status || LOST.indexOf(xhr.status) !== -1) {
      return; // not one sent again, or still no answer (handled above)
    }
    waiting.splice(waiting.indexOf(write), 1);
    sending = null;
    tries = 0;
    if (xhr.getResponseHeader("Idempotent-Replayed") === "true") {
      say("Checked: the site had made your change before the connection dropped. " +
        "It was made once; its result is shown.");
    } else if (xhr.status < 400) {
      say("Checked: your change had not reached the site. It has now been made, once.");
    } else if (/^text\/plain/.test(xhr.getResponseHeader("Content-Type") || "")) {
      say(xhr.responseText);
    } else {
      say("Checked: the site did not make your change; it says why.");
    }
    if (waiting.length) {
      checking();
      sendNext();
    }
  });
})();
