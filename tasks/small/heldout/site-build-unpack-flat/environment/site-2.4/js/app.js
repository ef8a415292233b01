document.title += " (2.4)";
