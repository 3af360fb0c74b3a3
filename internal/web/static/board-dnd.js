// Drag and drop between the board's columns, with the vendored SortableJS.
// A drop is one move, sent once with a request_id made for that drop: a
// request the browser repeats replays the first move instead of moving
// again, like every form of the board. After the move the card offers an
// optional reason, kept as a note; skipping it is fine. Without JavaScript,
// or from the keyboard, each card's Move form does the same.
(function () {
  "use strict";

  // requestID is a fresh request_id in the board's "web-" namespace.
  // crypto.randomUUID needs a secure context; getRandomValues does not.
  function requestID() {
    if (window.crypto && crypto.randomUUID) {
      return "web-" + crypto.randomUUID();
    }
    var b = crypto.getRandomValues(new Uint8Array(16));
    return "web-" + Array.prototype.map.call(b, function (x) { return (x + 256).toString(16).slice(1); }).join("");
  }

  function post(url, fields) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString()
    });
  }

  // refusal is the message of a refused form's page, or a generic one.
  function refusal(resp) {
    return resp.text().then(function (html) {
      var doc = new DOMParser().parseFromString(html, "text/html");
      var err = doc.querySelector("main .error");
      return err ? err.textContent.trim() : "The move failed (" + resp.status + ").";
    });
  }

  function announce(text) {
    var s = document.getElementById("dnd-status");
    if (s) {
      s.textContent = text;
    }
  }

  // count adds delta to a column heading's count, keeping a "+" suffix.
  function count(list, delta) {
    var n = list.closest(".column").querySelector("h2 .n");
    if (!n) {
      return;
    }
    var m = /^(\d+)(\+?)$/.exec(n.textContent.trim());
    if (m) {
      n.textContent = (parseInt(m[1], 10) + delta) + m[2];
    }
  }

  // retarget lets the card's Move form offer every status but the new one.
  function retarget(card, status) {
    var select = card.querySelector('form[action$="/move"] select[name="status"]');
    if (!select) {
      return;
    }
    select.textContent = "";
    document.querySelectorAll("#board .cards[data-status]").forEach(function (l) {
      if (l.dataset.status !== status) {
        select.add(new Option(l.dataset.label, l.dataset.status));
      }
    });
  }

  function field(tag, attrs) {
    var el = document.createElement(tag);
    Object.keys(attrs).forEach(function (k) { el.setAttribute(k, attrs[k]); });
    return el;
  }

  // offerReason puts a small form on the card: a reason for the move,
  // added as a note with its own request_id (made once, so a second click
  // replays), or skipped.
  function offerReason(card, id, label) {
    var old = card.querySelector("form.reason");
    if (old) {
      old.remove();
    }
    var form = field("form", { "class": "reason", method: "post", action: "/tickets/" + id + "/notes", "hx-boost": "false" });
    form.appendChild(field("input", { type: "hidden", name: "request_id", value: requestID() }));
    var lab = document.createElement("label");
    lab.textContent = "Why moved to " + label + "? ";
    var input = field("input", { name: "reason", maxlength: "1000", placeholder: "optional", autocomplete: "off" });
    lab.appendChild(input);
    var save = field("button", { type: "submit" });
    save.textContent = "Save reason";
    var skip = field("button", { type: "button", "class": "button secondary" });
    skip.textContent = "Skip";
    form.append(lab, save, skip);
    card.appendChild(form);
    input.focus();

    function done(text) {
      form.remove();
      announce(text);
    }
    skip.addEventListener("click", function () { done("No reason given."); });
    form.addEventListener("keydown", function (e) {
      if (e.key === "Escape") {
        done("No reason given.");
      }
    });
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      var reason = input.value.trim();
      if (!reason) {
        done("No reason given.");
        return;
      }
      save.disabled = true;
      post(form.getAttribute("action"), {
        request_id: form.elements.request_id.value,
        body: "Moved to " + label + ": " + reason
      }).then(function (resp) {
        if (resp.ok) {
          done("Reason saved as a note on " + id + ".");
          return;
        }
        return refusal(resp).then(function (msg) { save.disabled = false; announce(msg); });
      }, function () {
        save.disabled = false;
        announce("The reason could not be sent; try again.");
      });
    });
  }

  // dropped sends the move of a card dropped into another column; a refused
  // or failed move puts the card back where it was and says why.
  function dropped(evt) {
    var card = evt.item, from = evt.from, to = evt.to;
    if (from === to) {
      return;
    }
    var id = card.dataset.id, status = to.dataset.status, label = to.dataset.label;
    var form = card.querySelector('form[action$="/move"]');
    var back = form ? form.elements.return_to.value : location.pathname + location.search;
    var undo = function (msg) {
      from.insertBefore(card, from.children[evt.oldIndex] || null);
      var err = field("p", { "class": "dnd-error", role: "alert" });
      err.textContent = msg;
      card.appendChild(err);
      announce(msg);
    };
    card.setAttribute("aria-busy", "true");
    post("/tickets/" + id + "/move", { request_id: requestID(), status: status, return_to: back })
      .then(function (resp) {
        card.removeAttribute("aria-busy");
        // A move answers with a redirect back to this board; anything
        // else (a sign-in page, a refusal) is not a move.
        if (resp.ok && resp.redirected && new URL(resp.url).pathname === location.pathname) {
          count(from, -1);
          count(to, 1);
          retarget(card, status);
          announce(id + " moved to " + label + ".");
          offerReason(card, id, label);
          return;
        }
        return refusal(resp).then(undo);
      }, function () {
        card.removeAttribute("aria-busy");
        undo("The move could not be sent; nothing changed. Try again.");
      });
  }

  function init(root) {
    if (typeof Sortable === "undefined") {
      return;
    }
    var scope = root && root.querySelectorAll ? root : document;
    scope.querySelectorAll("#board .cards[data-status]").forEach(function (list) {
      if (list.dataset.dnd) {
        return;
      }
      list.dataset.dnd = "on";
      Sortable.create(list, {
        group: "board",
        sort: false, // a column's order is the board's, not the person's
        draggable: ".card",
        // Form controls keep their clicks; a card is dragged by the rest.
        filter: "button, input, select, textarea, summary, label, .reason",
        preventOnFilter: false,
        // Mouse and touch events rather than the browser's native drag:
        // the same code path on phones, and a small move is still a click.
        forceFallback: true,
        fallbackTolerance: 4,
        delayOnTouchOnly: true,
        delay: 150,
        ghostClass: "dnd-ghost",
        chosenClass: "dnd-chosen",
        fallbackClass: "dnd-fallback",
        onEnd: dropped
      });
    });
  }

  // htmx swaps whole pages in place: each new board is set up on its load.
  document.addEventListener("htmx:load", function (e) { init(e.detail.elt); });
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { init(document); });
  } else {
    init(document);
  }
})();
