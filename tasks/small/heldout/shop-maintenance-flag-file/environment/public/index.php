<?php
// Shop front controller: show the maintenance page while the flag file exists.
if (file_exists(__DIR__ . '/.maintenance') && filesize(__DIR__ . '/.maintenance') === 0) {
    readfile(__DIR__ . '/maintenance.html');
    exit;
}
require __DIR__ . '/../app/bootstrap.php';
