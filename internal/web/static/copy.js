// Copy buttons for what is shown once (a new token, an invitation link).
// The buttons are rendered hidden and shown here, so a page without
// JavaScript shows only the selectable field, never a button that does
// nothing. The clipboard needs a secure context; where it is missing or
// refused, the field's text is selected for the person to copy.
(function () {
  "use strict";

  function say(button, text) {
    var s = document.getElementById(button.getAttribute("aria-describedby") || "");
    if (s) {
      s.textContent = text;
    }
  }

  function init(root) {
    var scope = root && root.querySelectorAll ? root : document;
    scope.querySelectorAll("button[data-copy]").forEach(function (button) {
      if (button.dataset.ready) {
        return;
      }
      button.dataset.ready = "on";
      button.hidden = false;
      button.addEventListener("click", function () {
        var field = document.getElementById(button.dataset.copy);
        if (!field) {
          return;
        }
        var fallback = function () {
          field.focus();
          field.select();
          say(button, "Selected: press Ctrl+C (⌘C) to copy.");
        };
        if (!navigator.clipboard || !window.isSecureContext) {
          fallback();
          return;
        }
        navigator.clipboard.writeText(field.value).then(function () {
          say(button, "Copied.");
        }, fallback);
      });
    });
  }

  document.addEventListener("htmx:load", function (e) { init(e.detail.elt); });
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { init(document); });
  } else {
    init(document);
  }
})();
