// Shows each <time class="ago"> of the page relative to now ("3 min ago")
// with the exact time, in the browser's time zone, on hover; each <time
// class="left"> (a claim's end) as what is left of it ("12 min left",
// "ended"). The server
// writes the exact UTC time as text and title, which is what a page shows
// without JavaScript. Loaded from this site (the Content-Security-Policy
// allows no inline script).
(function () {
  "use strict";
  // dateStyle and timeStyle cannot name the zone: the parts are spelled out.
  var exact = new Intl.DateTimeFormat(undefined, { year: "numeric", month: "short", day: "numeric",
    hour: "2-digit", minute: "2-digit", timeZoneName: "short" });
  var day = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });

  function relative(then, now) {
    var s = Math.round((now - then) / 1000);
    var future = s < 0;
    s = Math.abs(s);
    var text;
    if (s < 45) return "just now";
    if (s < 3600) text = Math.max(1, Math.round(s / 60)) + " min";
    else if (s < 86400) text = Math.round(s / 3600) + " h";
    else if (s < 7 * 86400) {
      var d = Math.round(s / 86400);
      if (d === 1 && !future) return "yesterday";
      text = d + (d === 1 ? " day" : " days");
    } else return day.format(then);
    return future ? "in " + text : text + " ago";
  }

  // remaining is what is left until then: minutes below two hours (a
  // lease is at most one), rounded up so "1 min left" lasts to the end.
  function remaining(then, now) {
    var s = Math.ceil((then - now) / 1000);
    if (s <= 0) return "ended";
    if (s < 7200) return Math.ceil(s / 60) + " min left";
    return Math.round(s / 3600) + " h left";
  }

  function show(root) {
    var now = Date.now();
    var ends = (root || document).querySelectorAll("time.left[datetime]");
    for (var j = 0; j < ends.length; j++) {
      var until = new Date(ends[j].getAttribute("datetime"));
      if (isNaN(until)) continue;
      ends[j].textContent = remaining(until, now);
      ends[j].title = "until " + exact.format(until);
    }
    var els = (root || document).querySelectorAll("time.ago[datetime]");
    for (var i = 0; i < els.length; i++) {
      var t = new Date(els[i].getAttribute("datetime"));
      if (isNaN(t)) continue;
      els[i].textContent = relative(t, now);
      els[i].title = exact.format(t);
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", function () { show(); });
  else show();
  // htmx swaps pages in without a new load; live.js announces the parts it
  // refreshes as htmx's load.
  document.addEventListener("htmx:afterSettle", function () { show(); });
  document.addEventListener("htmx:load", function () { show(); });
  setInterval(show, 30000);
})();
