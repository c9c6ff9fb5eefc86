// Rack elevations on the design page: zoom the drawing (an SVG image, crisp at any size).
(function () {
  const img = document.getElementById("elevation-drawing");
  if (!img) return;
  let scale = 1;
  function apply() {
    if (!img.naturalWidth) return;
    img.style.width = Math.round(img.naturalWidth * scale) + "px";
  }
  img.addEventListener("load", apply);
  document.querySelectorAll("#elevations [data-zoom]").forEach((button) => {
    button.addEventListener("click", () => {
      scale = Math.min(4, Math.max(0.2, scale * parseFloat(button.dataset.zoom)));
      apply();
    });
  });
})();
