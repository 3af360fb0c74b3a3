// live.js keeps the parts of a page that show shared state current while it
// is open. An element with data-live-marker="URL" (and an id) is refreshed
// from its page (data-live-page, else this page's URL) whenever the marker
// at URL changes. The marker is polled with If-None-Match: an unchanged
// board answers 304 at the cost of one small store read, which works the
// same on a local server and on Lambda, where no stream can stay open.
//
// A refresh replaces the element with its counterpart from the fetched page,
// except the parts the person is using: a field they typed into or are in
// is carried over whole, by the nearest id around it, so a half-typed
// reason survives. An open <details> with nothing typed in it is replaced
// and opened again; focus and the scroll position are kept.
(function () {
  "use strict";

  var INTERVAL = 2500; // ms between polls of a visible page
  var MAX_BACKOFF = 60000; // ms, the longest wait after failures
  var failures = 0;
  var timer = null;
  var running = false;

  // groups collects the live elements of the page by marker URL, so each
  // marker is asked once per poll however many elements follow it.
  function groups() {
    var out = {};
    document.querySelectorAll("[data-live-marker][id]").forEach(function (el) {
      var url = el.getAttribute("data-live-marker");
      (out[url] = out[url] || []).push(el);
    });
    return out;
  }

  function quoted(marker) {
    return marker ? '"' + marker + '"' : "";
  }

  function unquoted(etag) {
    return (etag || "").replace(/^W\//, "").replace(/^"|"$/g, "");
  }

  // check asks one marker; on a change it refreshes the elements that
  // follow it. A failure rejects, so the poll backs off.
  function check(url, els) {
    var have = els[0].getAttribute("data-live-etag") || "";
    var headers = { Accept: "application/json" };
    if (have) {
      headers["If-None-Match"] = quoted(have);
    }
    // no-store: the browser's own cache must not answer for the server;
    // manual: a signed-out poll is a redirect to sign in, not a page to
    // compare.
    return fetch(url, { headers: headers, cache: "no-store", credentials: "same-origin", redirect: "manual" })
      .then(function (r) {
        if (r.status === 304) {
          return;
        }
        if (r.status !== 200) {
          throw new Error("change marker " + url + ": " + r.status);
        }
        var now = unquoted(r.headers.get("ETag"));
        if (now && now !== have) {
          return refresh(els);
        }
      });
  }

  // refresh fetches the page once and swaps in each element's new version.
  function refresh(els) {
    var page = els[0].getAttribute("data-live-page") || location.pathname + location.search;
    return fetch(page, { cache: "no-store", credentials: "same-origin", redirect: "manual" })
      .then(function (r) {
        if (r.status !== 200) {
          throw new Error("live page " + page + ": " + r.status);
        }
        return r.text();
      })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        els.forEach(function (old) {
          var fresh = old.isConnected && doc.getElementById(old.id);
          if (fresh) {
            swap(old, document.adoptNode(fresh));
          }
        });
      });
  }

  // dirty: the person changed the control from what the page rendered.
  function dirty(c) {
    if (c.type === "hidden") {
      return false;
    }
    if (c.type === "checkbox" || c.type === "radio") {
      return c.checked !== c.defaultChecked;
    }
    if (c.tagName === "SELECT" && c.multiple) {
      return Array.prototype.some.call(c.options, function (o) {
        return o.selected !== o.defaultSelected;
      });
    }
    if (c.tagName === "SELECT") {
      // A single choice with no option marked selected shows its first
      // (none, in a list box); with several marked, the last.
      var shown = c.size > 1 ? -1 : 0;
      for (var i = 0; i < c.options.length; i++) {
        if (c.options[i].defaultSelected) {
          shown = i;
        }
      }
      return c.selectedIndex !== shown;
    }
    return c.value !== c.defaultValue;
  }

  // typing lists the fields in root the person changed or is in.
  function typing(root) {
    return Array.prototype.filter.call(root.querySelectorAll("input, textarea, select"), function (c) {
      return dirty(c) || c === document.activeElement;
    });
  }

  // opened lists the open <details> in root with nothing typed in them:
  // they are replaced by their new version, opened again, so an open Edit
  // panel shows the ticket as it is now.
  function opened(root) {
    return Array.prototype.filter.call(root.querySelectorAll("details[open]"), function (d) {
      return typing(d).length === 0;
    });
  }

  // inUse lists the parts of root to carry over: for each field the person
  // changed or is in, the nearest element with an id around it (outermost
  // when they nest). null: something is in use that no id inside root
  // isolates, so root is left as it is for now.
  function inUse(root) {
    var used = typing(root);
    var keep = [];
    for (var i = 0; i < used.length; i++) {
      var k = used[i].closest("[id]");
      if (!k || k === root || !root.contains(k)) {
        return null;
      }
      if (keep.some(function (x) { return x.contains(k); })) {
        continue;
      }
      keep = keep.filter(function (x) { return !k.contains(x); });
      keep.push(k);
    }
    return keep;
  }

  // scrolled notes the scroll offsets inside root by the path of child
  // indexes, to set them again on the element in the same place.
  function scrolled(root) {
    var out = [];
    (function walk(el, path) {
      if (el.scrollTop || el.scrollLeft) {
        out.push({ path: path, top: el.scrollTop, left: el.scrollLeft });
      }
      for (var i = 0; i < el.children.length; i++) {
        walk(el.children[i], path.concat(i));
      }
    })(root, []);
    return out;
  }

  function rescroll(root, offsets) {
    offsets.forEach(function (o) {
      var el = root;
      for (var i = 0; el && i < o.path.length; i++) {
        el = el.children[o.path[i]];
      }
      if (el) {
        el.scrollTop = o.top;
        el.scrollLeft = o.left;
      }
    });
  }

  // counterpart returns a function that finds, in fresh, the element at
  // el's place in old: the same child indexes below the same nearest id,
  // so keyboard focus stays where it was when its element is replaced.
  function counterpart(old, el, fresh) {
    var path = [];
    var anchor = el;
    while (anchor !== old && !anchor.id) {
      path.unshift(Array.prototype.indexOf.call(anchor.parentElement.children, anchor));
      anchor = anchor.parentElement;
    }
    var id = anchor === old ? null : anchor.id;
    return function () {
      var at = id === null ? fresh : fresh.querySelector("#" + CSS.escape(id));
      for (var i = 0; at && i < path.length; i++) {
        at = at.children[path[i]];
      }
      return at && at.tagName === el.tagName ? at : null;
    };
  }

  function swap(old, fresh) {
    if (old.querySelector(".sortable-chosen")) {
      return; // a card is being dragged: the next poll after the drop brings the change
    }
    var keep = inUse(old);
    if (keep === null) {
      return;
    }
    var places = [];
    for (var i = 0; i < keep.length; i++) {
      var place = fresh.querySelector("#" + CSS.escape(keep[i].id));
      if (!place) {
        return; // what the person uses is gone from the new page: wait until they are done
      }
      places.push(place);
    }
    var active = document.activeElement;
    var range = null;
    if (active && typeof active.selectionStart === "number") {
      range = [active.selectionStart, active.selectionEnd, active.selectionDirection];
    }
    var findActive = active && old.contains(active) ? counterpart(old, active, fresh) : null;
    var reopen = opened(old).map(function (d) { return counterpart(old, d, fresh); });
    var x = window.scrollX;
    var y = window.scrollY;
    var offsets = scrolled(old);
    places.forEach(function (p, i) {
      p.replaceWith(keep[i]);
    });
    old.replaceWith(fresh);
    reopen.forEach(function (find) {
      var d = find();
      if (d) {
        d.open = true;
      }
    });
    rescroll(fresh, offsets);
    window.scrollTo(x, y);
    if (active && !active.isConnected && findActive) {
      active = findActive(); // a focused link or button that was not carried over: its new version
    }
    if (active && active.isConnected && document.activeElement !== active) {
      active.focus({ preventScroll: true });
      if (range && typeof active.setSelectionRange === "function") {
        active.setSelectionRange(range[0], range[1], range[2]);
      }
    }
    if (window.htmx) {
      window.htmx.process(fresh); // boosted links and forms in the new part
      // and what sets up new content on htmx's load (drag and drop, copy
      // buttons, local times) sets up this part too
      window.htmx.trigger(fresh, "htmx:load", { elt: fresh });
    }
  }

  // poll asks every marker on the page, then plans the next poll.
  function poll() {
    timer = null;
    if (running || document.hidden) {
      return;
    }
    var g = groups();
    var urls = Object.keys(g);
    running = true;
    Promise.all(urls.map(function (u) { return check(u, g[u]); }))
      .then(function () { failures = 0; }, function () { failures++; })
      .then(function () {
        running = false;
        schedule();
      });
  }

  // schedule waits INTERVAL, doubled for each failure in a row up to
  // MAX_BACKOFF, with a little jitter so many open boards do not ask in
  // step. A hidden tab does not poll; it asks at once when shown again.
  function schedule() {
    if (timer !== null || document.hidden) {
      return;
    }
    var wait = Math.min(INTERVAL * Math.pow(2, failures), MAX_BACKOFF);
    timer = setTimeout(poll, wait * (0.9 + Math.random() * 0.2));
  }

  document.addEventListener("visibilitychange", function () {
    if (document.hidden) {
      clearTimeout(timer);
      timer = null;
    } else if (timer === null) {
      timer = setTimeout(poll, 0);
    }
  });
  schedule();
})();
