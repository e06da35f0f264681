<?php

use App\Http\Controllers\SiteController;
use Illuminate\Support\Facades\Route;

Route::get('/hello', [SiteController::class, 'hello']);
Route::get('/', [SiteController::class, 'home']);
Route::get('/login', [SiteController::class, 'loginForm'])->name('login');
Route::post('/login', [SiteController::class, 'login']);
Route::post('/logout', [SiteController::class, 'logout']);
Route::get('/account', [SiteController::class, 'account'])->middleware('auth');
