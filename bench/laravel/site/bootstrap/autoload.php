<?php

// No Composer here: Debian's php-laravel-framework installs every component
// with its own autoloader under /usr/share/php, and Illuminate/autoload.php
// loads them all (with Symfony, Carbon, Monolog, ...). The application's own
// classes (App\...) load from app/ by PSR-4.
require_once 'Illuminate/autoload.php';

spl_autoload_register(function (string $class): void {
    if (strncmp($class, 'App\\', 4) !== 0) {
        return;
    }
    $file = __DIR__.'/../app/'.str_replace('\\', '/', substr($class, 4)).'.php';
    if (is_file($file)) {
        require $file;
    }
});
