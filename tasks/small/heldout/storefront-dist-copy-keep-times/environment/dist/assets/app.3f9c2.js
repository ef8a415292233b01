document.addEventListener("DOMContentLoaded",()=>{document.body.dataset.ready="1"});
