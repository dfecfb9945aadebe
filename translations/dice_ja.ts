<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="ja" sourcelanguage="en">
<context>
    <name>QObject</name>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 ms</translation>
    </message>
</context>
<context>
    <name>dice::AboutDialog</name>
    <message>
        <source>About DICE Workbench</source>
        <translation>DICE ワークベンチについて</translation>
    </message>
    <message>
        <source>&lt;h3&gt;DICE Workbench %1&lt;/h3&gt;&lt;p&gt;Generate, infill, test and time CUDA kernels with diffusion language models of the DICE family, and watch the model sculpt each kernel out of masked tokens.&lt;/p&gt;&lt;p&gt;Copyright © 2026 the DICE Workbench developers. This program is free software: you can redistribute it and/or modify it under the terms of the GNU General Public License, version 3 or (at your option) any later version.&lt;/p&gt;&lt;p&gt;Built with Qt, QScintilla, QCustomPlot, LibTorch, NVRTC and CUPTI.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;DICE ワークベンチ %1&lt;/h3&gt;&lt;p&gt;DICE 系の拡散言語モデルで CUDA カーネルを生成・穴埋め・検証・計測し、モデルがマスクされたトークンからカーネルを彫り出していく様子を観察できます。&lt;/p&gt;&lt;p&gt;Copyright © 2026 DICE ワークベンチ開発者。本プログラムはフリーソフトウェアです。GNU 一般公衆利用許諾書のバージョン 3、または（任意で）それ以降のバージョンの条件のもとで再頒布・改変できます。&lt;/p&gt;&lt;p&gt;Qt、QScintilla、QCustomPlot、LibTorch、NVRTC、CUPTI を使用しています。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>The machine is still being checked.</source>
        <translation>マシンを確認しています。</translation>
    </message>
</context>
<context>
    <name>dice::CheckpointView</name>
    <message>
        <source>Scoring %1 failed: %2</source>
        <translation>%1 の採点に失敗しました: %2</translation>
    </message>
    <message>
        <source>it ended without a status; see %1</source>
        <translation>状態を残さずに終了しました。%1 を参照してください</translation>
    </message>
    <message>
        <source>%1 is scored.</source>
        <translation>%1 を採点しました。</translation>
    </message>
    <message>
        <source>step %1</source>
        <translation>ステップ %1</translation>
    </message>
    <message>
        <source>final model</source>
        <translation>最終モデル</translation>
    </message>
    <message>
        <source>not evaluated at this step</source>
        <translation>このステップでは評価していません</translation>
    </message>
    <message>
        <source>the starting model</source>
        <translation>開始時のモデル</translation>
    </message>
    <message>
        <source>Scoring %1 could not start: %2</source>
        <translation>%1 の採点を開始できませんでした: %2</translation>
    </message>
    <message>
        <source>Scoring %1 on the built-in suite (greedy, judged as the run judges); its log is in %2.</source>
        <translation>%1 を組み込みスイートで採点中です(貪欲デコード、判定は実行と同じ)。ログは %2 にあります。</translation>
    </message>
    <message>
        <source>Checkpoint</source>
        <translation>チェックポイント</translation>
    </message>
    <message>
        <source>Held-out: correct</source>
        <translation>評価用: 正解</translation>
    </message>
    <message>
        <source>Held-out: mean reward</source>
        <translation>評価用: 平均報酬</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>フォルダ</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>モデル</translation>
    </message>
    <message>
        <source>Compiled</source>
        <translation>コンパイル成功</translation>
    </message>
    <message>
        <source>Correct (Exec)</source>
        <translation>正解 (Exec)</translation>
    </message>
    <message>
        <source>Level 1</source>
        <translation>レベル 1</translation>
    </message>
    <message>
        <source>Level 2</source>
        <translation>レベル 2</translation>
    </message>
    <message>
        <source>Level 3</source>
        <translation>レベル 3</translation>
    </message>
    <message>
        <source>Open as the current model</source>
        <translation>現在のモデルとして開く</translation>
    </message>
    <message>
        <source>Start a run from it</source>
        <translation>ここから実行を始める</translation>
    </message>
    <message>
        <source>Score on the built-in suite</source>
        <translation>組み込みスイートで採点</translation>
    </message>
    <message>
        <source>Score the starting model</source>
        <translation>開始時のモデルを採点</translation>
    </message>
    <message>
        <source>Scores on the built-in suite, greedy decoding, judged as the run judges (with the compile reward: compiled and the host part&apos;s dry run right). Correct is the paper&apos;s Exec; speedups (fast_p) need the timed reward and a GPU.</source>
        <translation>組み込みスイートでの採点です(貪欲デコード、判定は実行と同じ。コンパイル報酬では、コンパイルが通りホスト部のドライランが正しいこと)。正解は論文の Exec にあたります。高速化 (fast_p) には計時付きの報酬と GPU が必要です。</translation>
    </message>
</context>
<context>
    <name>dice::ColorKey</name>
    <message>
        <source>unsure</source>
        <translation>不確か</translation>
    </message>
    <message>
        <source>step 1</source>
        <translation>ステップ 1</translation>
    </message>
    <message>
        <source>certain</source>
        <translation>確信</translation>
    </message>
    <message>
        <source>step %1</source>
        <translation>ステップ %1</translation>
    </message>
    <message>
        <source>masked</source>
        <translation>マスク</translation>
    </message>
</context>
<context>
    <name>dice::CompareView</name>
    <message>
        <source>Source</source>
        <translation>ソース</translation>
    </message>
    <message>
        <source>PTX</source>
        <translation>PTX</translation>
    </message>
    <message>
        <source>Resources</source>
        <translation>資源</translation>
    </message>
    <message>
        <source>Kernel</source>
        <translation>カーネル</translation>
    </message>
    <message>
        <source>Registers</source>
        <translation>レジスタ</translation>
    </message>
    <message>
        <source>Shared bytes</source>
        <translation>共有メモリ（バイト）</translation>
    </message>
    <message>
        <source>Stack bytes</source>
        <translation>スタック（バイト）</translation>
    </message>
    <message>
        <source>Spill bytes</source>
        <translation>スピル（バイト）</translation>
    </message>
    <message>
        <source>Pin a run of this task in History as its baseline to compare the editor&apos;s candidate with it.</source>
        <translation>履歴でこのタスクの実行をベースラインに固定すると、エディタの候補と比較できます。</translation>
    </message>
    <message>
        <source>Compile the editor&apos;s candidate to compare it.</source>
        <translation>比較するには、エディタの候補をコンパイルしてください。</translation>
    </message>
    <message>
        <source>Against %1: source %2 lines removed, %3 added; PTX %4 removed, %5 added.</source>
        <translation>%1 と比較: ソースは %2 行削除、%3 行追加; PTX は %4 行削除、%5 行追加。</translation>
    </message>
</context>
<context>
    <name>dice::CountersView</name>
    <message>
        <source>Counters are read from a GPU; this machine has none</source>
        <translation>カウンターは GPU から読み取ります。このマシンには GPU がありません</translation>
    </message>
    <message>
        <source>Nsight Compute (ncu) was not found</source>
        <translation>Nsight Compute (ncu) が見つかりません</translation>
    </message>
    <message>
        <source>A profile is being taken</source>
        <translation>プロファイルを取得中です</translation>
    </message>
    <message>
        <source>The candidate could not be written for the profiler: %1</source>
        <translation>プロファイラー用に候補を書き出せませんでした: %1</translation>
    </message>
    <message>
        <source>Profiling with %1: each kernel is replayed to read its counters, which takes seconds…</source>
        <translation>%1 でプロファイル中: カウンターを読むため各カーネルを再実行するので数秒かかります…</translation>
    </message>
    <message>
        <source>The profile failed: %1%2</source>
        <translation>プロファイルに失敗しました: %1%2</translation>
    </message>
    <message>
        <source>memory</source>
        <translation>メモリ</translation>
    </message>
    <message>
        <source>compute</source>
        <translation>演算</translation>
    </message>
    <message>
        <source>latency</source>
        <translation>レイテンシ</translation>
    </message>
    <message>
        <source>Candidate</source>
        <translation>候補</translation>
    </message>
    <message>
        <source>Reference</source>
        <translation>参照</translation>
    </message>
    <message>
        <source>Baseline</source>
        <translation>ベースライン</translation>
    </message>
    <message>
        <source>Hardware counters are read on a GPU; this machine has none.</source>
        <translation>ハードウェアカウンターは GPU で読み取ります。このマシンには GPU がありません。</translation>
    </message>
    <message numerus="yes">
        <source>%n kernel(s) without floating-point work are not on the roofline.</source>
        <translation>
            <numerusform>浮動小数点演算のないカーネル %n 個はルーフラインに表示されません。</numerusform>
        </translation>
    </message>
    <message>
        <source>Collect reads the counters of the editor&apos;s candidate and of the reference with %1.</source>
        <translation>「カウンターを取得」で、エディタの候補と参照のカウンターを %1 で読み取ります。</translation>
    </message>
    <message>
        <source>Collect counters</source>
        <translation>カウンターを取得</translation>
    </message>
    <message>
        <source>Keep as baseline</source>
        <translation>ベースラインとして保持</translation>
    </message>
    <message>
        <source>Show these counters beside the next profile&apos;s</source>
        <translation>このカウンターを次のプロファイルの横に表示します</translation>
    </message>
    <message>
        <source>Side</source>
        <translation>対象</translation>
    </message>
    <message>
        <source>Kernel</source>
        <translation>カーネル</translation>
    </message>
    <message>
        <source>Duration (µs)</source>
        <translation>所要時間 (µs)</translation>
    </message>
    <message>
        <source>Compute (% of peak)</source>
        <translation>演算 (ピーク比 %)</translation>
    </message>
    <message>
        <source>Memory (% of peak)</source>
        <translation>メモリ (ピーク比 %)</translation>
    </message>
    <message>
        <source>Achieved occupancy (%)</source>
        <translation>実効占有率 (%)</translation>
    </message>
    <message>
        <source>DRAM (MB)</source>
        <translation>DRAM (MB)</translation>
    </message>
    <message>
        <source>FLOP per byte</source>
        <translation>FLOP/バイト</translation>
    </message>
    <message>
        <source>GFLOP/s</source>
        <translation>GFLOP/s</translation>
    </message>
    <message>
        <source>Limited by</source>
        <translation>律速要因</translation>
    </message>
    <message>
        <source>Arithmetic intensity (FLOP per DRAM byte)</source>
        <translation>演算強度 (DRAM 1 バイトあたりの FLOP)</translation>
    </message>
    <message>
        <source>FLOP per second</source>
        <translation>毎秒 FLOP</translation>
    </message>
    <message>
        <source>Roofline (peak bandwidth, FP32)</source>
        <translation>ルーフライン (ピーク帯域、FP32)</translation>
    </message>
    <message numerus="yes">
        <source>%n launch(es) profiled; the figures are those of the longest</source>
        <translation>
            <numerusform>%n 回の起動をプロファイルしました。数値は最も長い起動のものです</numerusform>
        </translation>
    </message>
    <message>
        <source>%1: %2 kernels of the candidate, %3 of the reference, each at its longest launch.%4</source>
        <translation>%1: 候補のカーネル %2 個、参照のカーネル %3 個 (それぞれ最も長い起動)。%4</translation>
    </message>
    <message>
        <source>Profile the candidate and the reference with %1: every launch of one correctness trial</source>
        <translation>%1 で候補と参照をプロファイルします (1 回の正しさの試行のすべての起動)</translation>
    </message>
</context>
<context>
    <name>dice::DecodePlots</name>
    <message>
        <source>Committed per step</source>
        <translation>ステップごとの確定数</translation>
    </message>
    <message>
        <source>Confidence</source>
        <translation>確信度</translation>
    </message>
    <message>
        <source>Diffusion</source>
        <translation>拡散</translation>
    </message>
    <message>
        <source>Autoregressive</source>
        <translation>自己回帰</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>ステップ</translation>
    </message>
    <message>
        <source>Tokens committed</source>
        <translation>確定したトークン数</translation>
    </message>
    <message>
        <source>Mean confidence</source>
        <translation>平均確信度</translation>
    </message>
    <message>
        <source>Tokens produced</source>
        <translation>生成したトークン数</translation>
    </message>
    <message>
        <source>Denoising passes</source>
        <translation>デノイジングのパス数</translation>
    </message>
</context>
<context>
    <name>dice::DenoisingCanvas</name>
    <message>
        <source>Position %1: token %2 %3
committed at step %4 (block %5), confidence %6</source>
        <translation>位置 %1: トークン %2 %3
ステップ %4 (ブロック %5) で確定、確信度 %6</translation>
    </message>
    <message>
        <source>Position %1: still masked</source>
        <translation>位置 %1: まだマスクされています</translation>
    </message>
</context>
<context>
    <name>dice::DiagnosticModel</name>
    <message>
        <source>error</source>
        <translation>エラー</translation>
    </message>
    <message>
        <source>warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>remark</source>
        <translation>注記</translation>
    </message>
    <message>
        <source>%1 (#%2)</source>
        <translation>%1 (#%2)</translation>
    </message>
    <message>
        <source>Severity</source>
        <translation>重大度</translation>
    </message>
    <message>
        <source>Line</source>
        <translation>行</translation>
    </message>
    <message>
        <source>Column</source>
        <translation>列</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>メッセージ</translation>
    </message>
</context>
<context>
    <name>dice::EvaluationMessage</name>
    <message>
        <source>correctness</source>
        <translation>正しさの検査</translation>
    </message>
    <message>
        <source>small preset</source>
        <translation>小さいプリセット</translation>
    </message>
    <message>
        <source>%1 of %2 elements outside atol %3, rtol %4</source>
        <translation>%2 要素中 %1 要素が atol %3、rtol %4 の範囲外</translation>
    </message>
    <message>
        <source>output %1: </source>
        <translation>出力 %1: </translation>
    </message>
    <message>
        <source> (%1 are NaN: elements never written hold the poison)</source>
        <translation>（%1 要素が NaN: 書き込まれなかった要素は毒値のまま）</translation>
    </message>
    <message>
        <source>a kernel wrote outside its tensors</source>
        <translation>カーネルがテンソルの外に書き込んだ</translation>
    </message>
    <message>
        <source>the candidate changed its inputs</source>
        <translation>候補が入力を書き換えた</translation>
    </message>
    <message>
        <source>the output changes with the previous content of memory</source>
        <translation>出力がメモリの以前の内容によって変わる</translation>
    </message>
    <message>
        <source>correct</source>
        <translation>正しい</translation>
    </message>
    <message>
        <source>computes with PyTorch operators instead of its kernels</source>
        <translation>自分のカーネルではなく PyTorch の演算子で計算している</translation>
    </message>
    <message>
        <source>cancelled before it ran</source>
        <translation>実行前に取り消された</translation>
    </message>
    <message>
        <source>compiled, not run (compile only): a dry run on meta tensors found outputs of the reference&apos;s shapes and dtypes</source>
        <translation>コンパイル済み、未実行（コンパイルのみ）: meta テンソルでの試行で、参照と同じ形状と dtype の出力を確認</translation>
    </message>
    <message>
        <source>correct; %1 ms against the reference&apos;s %2 ms (%3x)</source>
        <translation>正しい; %1 ms（参照は %2 ms、%3 倍）</translation>
    </message>
    <message>
        <source>%1 trial %2: %3</source>
        <translation>%1の試行 %2: %3</translation>
    </message>
    <message>
        <source>%1 trial %2</source>
        <translation>%1の試行 %2</translation>
    </message>
    <message>
        <source>the reference</source>
        <translation>参照</translation>
    </message>
    <message>
        <source>the kernel faulted during %1: %2</source>
        <translation>%1 の間にカーネルが異常終了: %2</translation>
    </message>
    <message>
        <source>the kernel faulted: %1</source>
        <translation>カーネルが異常終了: %1</translation>
    </message>
    <message>
        <source>the host code failed: %1</source>
        <translation>ホストコードが失敗: %1</translation>
    </message>
    <message>
        <source>the evaluation failed: %1</source>
        <translation>評価が失敗: %1</translation>
    </message>
    <message>
        <source>no progress during &quot;%1&quot;: %2</source>
        <translation>「%1」の間に進捗なし: %2</translation>
    </message>
    <message>
        <source>the worker died during &quot;%1&quot;: %2</source>
        <translation>「%1」の間にワーカーが終了: %2</translation>
    </message>
    <message>
        <source>compiled, not run: %1 (a dry run on meta tensors found outputs of the reference&apos;s shapes and dtypes)</source>
        <translation>コンパイル済み、未実行: %1（meta テンソルでの試行で、参照と同じ形状と dtype の出力を確認）</translation>
    </message>
</context>
<context>
    <name>dice::EvaluationView</name>
    <message>
        <source>Correct, %1× the speed of the PyTorch reference.</source>
        <translation>正解。PyTorch 参照実装の %1 倍の速さです。</translation>
    </message>
    <message>
        <source>Correct.</source>
        <translation>正解。</translation>
    </message>
    <message>
        <source>Wrong: an output differs from the reference.</source>
        <translation>不正解: 出力が参照実装と一致しません。</translation>
    </message>
    <message>
        <source>Does not compile.</source>
        <translation>コンパイルできません。</translation>
    </message>
    <message>
        <source>Not a valid candidate of the dialect.</source>
        <translation>この形式の候補として正しくありません。</translation>
    </message>
    <message>
        <source>Failed while running (a launch failed or the kernel faulted).</source>
        <translation>実行中に失敗しました (起動の失敗またはカーネルの異常終了)。</translation>
    </message>
    <message>
        <source>Took too long and was stopped.</source>
        <translation>時間がかかりすぎたため停止しました。</translation>
    </message>
    <message>
        <source>Not counted: the host code computes with PyTorch instead of its own kernels.</source>
        <translation>無効: ホストコードが自前のカーネルではなく PyTorch で計算しています。</translation>
    </message>
    <message>
        <source>Compiled, but not run: there is no GPU here.</source>
        <translation>コンパイルしましたが、GPU がないため実行していません。</translation>
    </message>
    <message>
        <source>The evaluation worker is running normally.</source>
        <translation>評価ワーカーは正常に動作しています。</translation>
    </message>
    <message>
        <source>The evaluation worker was restarted after the kernel faulted.</source>
        <translation>カーネルの異常終了のため評価ワーカーを再起動しました。</translation>
    </message>
    <message>
        <source>The evaluation worker was restarted after a timeout.</source>
        <translation>タイムアウトのため評価ワーカーを再起動しました。</translation>
    </message>
    <message>
        <source>Evaluation worker: %1</source>
        <translation>評価ワーカー: %1</translation>
    </message>
    <message>
        <source>This run</source>
        <translation>今回の実行</translation>
    </message>
    <message>
        <source>Baseline (run %1)</source>
        <translation>ベースライン (実行 %1)</translation>
    </message>
    <message>
        <source>Baseline</source>
        <translation>ベースライン</translation>
    </message>
    <message>
        <source>Change</source>
        <translation>変化</translation>
    </message>
    <message>
        <source>Time per call (ms)</source>
        <translation>1 回あたりの時間 (ms)</translation>
    </message>
    <message>
        <source>Trials</source>
        <translation>試行数</translation>
    </message>
    <message>
        <source>Evaluate to compile, check and time the candidate against the task&apos;s reference.</source>
        <translation>評価すると、候補をコンパイルし、タスクの参照実装と照合して時間を計測します。</translation>
    </message>
    <message>
        <source>Device: %1.</source>
        <translation>デバイス: %1。</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>判定</translation>
    </message>
    <message>
        <source>Compile time</source>
        <translation>コンパイル時間</translation>
    </message>
    <message>
        <source>Correctness trials passed</source>
        <translation>合格した正しさの試行</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%2 中 %1</translation>
    </message>
    <message>
        <source>Largest absolute error</source>
        <translation>最大絶対誤差</translation>
    </message>
    <message>
        <source>Median time</source>
        <translation>時間の中央値</translation>
    </message>
    <message>
        <source>Mean time</source>
        <translation>時間の平均</translation>
    </message>
    <message>
        <source>Spread (standard deviation)</source>
        <translation>ばらつき (標準偏差)</translation>
    </message>
    <message>
        <source>Fastest trial</source>
        <translation>最速の試行</translation>
    </message>
    <message>
        <source>Kernel time (CUPTI, median)</source>
        <translation>カーネル時間 (CUPTI、中央値)</translation>
    </message>
    <message>
        <source>Reference median time</source>
        <translation>参照実装の時間の中央値</translation>
    </message>
    <message>
        <source>Speedup over PyTorch</source>
        <translation>PyTorch に対する高速化</translation>
    </message>
    <message>
        <source>Physical bound</source>
        <translation>物理的な下限</translation>
    </message>
    <message>
        <source>Kernel launches per call</source>
        <translation>1 回あたりのカーネル起動数</translation>
    </message>
    <message>
        <source>Flags</source>
        <translation>フラグ</translation>
    </message>
    <message>
        <source>none</source>
        <translation>なし</translation>
    </message>
    <message>
        <source>Worker</source>
        <translation>ワーカー</translation>
    </message>
    <message>
        <source>none run</source>
        <translation>未実行</translation>
    </message>
    <message>
        <source>Speedup of the means (KernelBench&apos;s)</source>
        <translation>平均の比による高速化 (KernelBench の方式)</translation>
    </message>
</context>
<context>
    <name>dice::FindBar</name>
    <message>
        <source>Find</source>
        <translation>検索</translation>
    </message>
    <message>
        <source>Replace with</source>
        <translation>置換後</translation>
    </message>
    <message>
        <source>Match case</source>
        <translation>大文字と小文字を区別</translation>
    </message>
    <message>
        <source>Regular expression</source>
        <translation>正規表現</translation>
    </message>
    <message>
        <source>Next</source>
        <translation>次へ</translation>
    </message>
    <message>
        <source>Previous</source>
        <translation>前へ</translation>
    </message>
    <message>
        <source>Replace</source>
        <translation>置換</translation>
    </message>
    <message>
        <source>Replace all</source>
        <translation>すべて置換</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>閉じる</translation>
    </message>
    <message>
        <source>Not found</source>
        <translation>見つかりません</translation>
    </message>
    <message numerus="yes">
        <source>%n replaced</source>
        <translation>
            <numerusform>%n 件を置換しました</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>dice::FinetuneArea</name>
    <message>
        <source>Rollouts</source>
        <translation>ロールアウト</translation>
    </message>
    <message>
        <source>%1 is not a folder.</source>
        <translation>%1 はフォルダではありません。</translation>
    </message>
    <message>
        <source>Run folder to compare</source>
        <translation>比較する実行フォルダ</translation>
    </message>
    <message>
        <source>Run folder</source>
        <translation>実行フォルダ</translation>
    </message>
    <message>
        <source>A trainer is running on this run.</source>
        <translation>この実行ではトレーナーが動作中です。</translation>
    </message>
    <message>
        <source>Run: %1</source>
        <translation>実行: %1</translation>
    </message>
    <message>
        <source>No run is open: set one up and start it, or open a run folder.</source>
        <translation>実行が開かれていません。設定して開始するか、実行フォルダを開いてください。</translation>
    </message>
    <message>
        <source>The trainer runs as its own process and writes the run folder; this area follows it.</source>
        <translation>トレーナーは独立したプロセスとして動き、実行フォルダに書き込みます。この画面はそれを追跡します。</translation>
    </message>
    <message>
        <source>sampling: %1 of %2 rollouts</source>
        <translation>サンプリング: %2 件中 %1 件のロールアウト</translation>
    </message>
    <message>
        <source>judging: %1 of %2 rollouts</source>
        <translation>判定: %2 件中 %1 件のロールアウト</translation>
    </message>
    <message>
        <source>updating: %1 of %2 micro-batches</source>
        <translation>更新: %2 個中 %1 個のマイクロバッチ</translation>
    </message>
    <message>
        <source>evaluating on the held-out tasks</source>
        <translation>評価用タスクで評価中</translation>
    </message>
    <message>
        <source>loading the model and the tasks</source>
        <translation>モデルとタスクを読み込み中</translation>
    </message>
    <message>
        <source>kernel infilling</source>
        <translation>カーネル穴埋め</translation>
    </message>
    <message>
        <source>end to end</source>
        <translation>エンドツーエンド</translation>
    </message>
    <message>
        <source>The trainer of this run is no longer running (killed, or its machine restarted) at step %1; Resume continues from the newest checkpoint.</source>
        <translation>この実行のトレーナーはステップ %1 で停止しています(強制終了されたか、マシンが再起動されました)。「再開」で最新のチェックポイントから続けます。</translation>
    </message>
    <message>
        <source>Step %1 of %2 (%3): %4, %5 s.</source>
        <translation>ステップ %1 / %2(%3): %4、%5 秒。</translation>
    </message>
    <message>
        <source>Pausing after this step.</source>
        <translation>このステップの後で一時停止します。</translation>
    </message>
    <message>
        <source>Stopping after this step.</source>
        <translation>このステップの後で停止します。</translation>
    </message>
    <message>
        <source>Finished: %1 steps in %2 s.</source>
        <translation>完了: %1 ステップ、%2 秒。</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>一時停止</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>中断</translation>
    </message>
    <message>
        <source>%1 after step %2 of %3, with a checkpoint; Resume continues it.</source>
        <translation>ステップ %2 / %3 の後で%1しました(チェックポイントあり)。「再開」で続けます。</translation>
    </message>
    <message>
        <source>The trainer failed: %1</source>
        <translation>トレーナーが失敗しました: %1</translation>
    </message>
    <message>
        <source>The trainer is starting.</source>
        <translation>トレーナーを起動中です。</translation>
    </message>
    <message>
        <source>This folder holds no status yet.</source>
        <translation>このフォルダにはまだ状態がありません。</translation>
    </message>
    <message>
        <source>(%1)</source>
        <translation>(%1)</translation>
    </message>
    <message>
        <source>Set-up</source>
        <translation>設定</translation>
    </message>
    <message>
        <source>Curves</source>
        <translation>曲線</translation>
    </message>
    <message>
        <source>Checkpoints</source>
        <translation>チェックポイント</translation>
    </message>
    <message>
        <source>Trainer log</source>
        <translation>トレーナーのログ</translation>
    </message>
    <message>
        <source>Open run…</source>
        <translation>実行を開く…</translation>
    </message>
    <message>
        <source>Compare with…</source>
        <translation>比較対象を追加…</translation>
    </message>
    <message>
        <source>Clear comparison</source>
        <translation>比較を解除</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>開始</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>一時停止</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>再開</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>End the run after its current step, with a checkpoint.</source>
        <translation>現在のステップの後で、チェックポイントを残して実行を終えます。</translation>
    </message>
    <message>
        <source>End the run after its current step, with a checkpoint; unlike a pause it is not meant to be resumed.</source>
        <translation>現在のステップの後で、チェックポイントを残して実行を終えます。一時停止と違い、再開を前提としません。</translation>
    </message>
</context>
<context>
    <name>dice::GenerateArea</name>
    <message>
        <source>What to generate</source>
        <translation>生成する内容</translation>
    </message>
    <message>
        <source>Current task</source>
        <translation>現在のタスク</translation>
    </message>
    <message>
        <source>Free prompt</source>
        <translation>自由プロンプト</translation>
    </message>
    <message>
        <source>Decoding</source>
        <translation>デコード</translation>
    </message>
    <message>
        <source>Block length</source>
        <translation>ブロック長</translation>
    </message>
    <message>
        <source>Denoising steps per block</source>
        <translation>ブロックあたりのデノイズステップ数</translation>
    </message>
    <message>
        <source>Remasking strategy</source>
        <translation>再マスク戦略</translation>
    </message>
    <message>
        <source>Confidence threshold</source>
        <translation>確信度しきい値</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Top-k (0: off)</source>
        <translation>Top-k（0: 無効）</translation>
    </message>
    <message>
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <source>Maximum new tokens</source>
        <translation>最大生成トークン数</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>シード</translation>
    </message>
    <message>
        <source>Low confidence, static</source>
        <translation>低確信度・静的</translation>
    </message>
    <message>
        <source>Low confidence, dynamic</source>
        <translation>低確信度・動的</translation>
    </message>
    <message>
        <source>Sequential</source>
        <translation>逐次</translation>
    </message>
    <message>
        <source>Entropy bounded</source>
        <translation>エントロピー制限</translation>
    </message>
    <message>
        <source>Generate</source>
        <translation>生成</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Describe the kernel to write…</source>
        <translation>書かせたいカーネルを説明してください…</translation>
    </message>
    <message>
        <source>Select a task in the task browser.</source>
        <translation>タスクブラウザでタスクを選んでください。</translation>
    </message>
    <message>
        <source>Model: %1</source>
        <translation>モデル: %1</translation>
    </message>
    <message>
        <source>Export the step trace</source>
        <translation>ステップの記録を書き出す</translation>
    </message>
    <message>
        <source>JSON lines (*.jsonl);;All files (*)</source>
        <translation>JSON Lines (*.jsonl);;すべてのファイル (*)</translation>
    </message>
    <message>
        <source>Export the code</source>
        <translation>コードを書き出す</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>すべてのファイル (*)</translation>
    </message>
    <message>
        <source>Open a step trace</source>
        <translation>ステップの記録を開く</translation>
    </message>
    <message>
        <source>Chat template</source>
        <translation>チャットテンプレート</translation>
    </message>
    <message>
        <source>Wrap the prompt in the Qwen3 chat template, as DICE models expect.</source>
        <translation>DICE モデルが想定するとおり、プロンプトを Qwen3 のチャットテンプレートで包みます。</translation>
    </message>
    <message>
        <source>Native kernel (.dice)</source>
        <translation>ネイティブカーネル (.dice)</translation>
    </message>
    <message>
        <source>KernelBench (Python)</source>
        <translation>KernelBench (Python)</translation>
    </message>
    <message>
        <source>Preset</source>
        <translation>プリセット</translation>
    </message>
    <message>
        <source>Entropy bound</source>
        <translation>エントロピーの上限</translation>
    </message>
    <message>
        <source>Custom</source>
        <translation>カスタム</translation>
    </message>
    <message>
        <source>KernelBench evaluation (paper)</source>
        <translation>KernelBench 評価 (論文)</translation>
    </message>
    <message>
        <source>RL rollout (paper)</source>
        <translation>RL ロールアウト (論文)</translation>
    </message>
    <message>
        <source>Confidence from the raw softmax</source>
        <translation>生の softmax による確信度</translation>
    </message>
    <message>
        <source>Also decode autoregressively, side by side</source>
        <translation>自己回帰デコードも並べて実行</translation>
    </message>
    <message>
        <source>Colour by</source>
        <translation>色分け</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>ステップ</translation>
    </message>
    <message>
        <source>Confidence</source>
        <translation>確信度</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>一時停止</translation>
    </message>
    <message>
        <source>Replay</source>
        <translation>再生</translation>
    </message>
    <message>
        <source>Export trace…</source>
        <translation>記録を書き出す…</translation>
    </message>
    <message>
        <source>Open trace…</source>
        <translation>記録を開く…</translation>
    </message>
    <message>
        <source>Export code…</source>
        <translation>コードを書き出す…</translation>
    </message>
    <message>
        <source>Send to Profile</source>
        <translation>プロファイルへ送る</translation>
    </message>
    <message>
        <source>Send to Infill</source>
        <translation>穴埋めへ送る</translation>
    </message>
    <message>
        <source>This task has no KernelBench module.</source>
        <translation>このタスクには KernelBench モジュールがありません。</translation>
    </message>
    <message>
        <source>No model is loaded, so nothing can be generated yet. Load one with Model ▸ Manage models…</source>
        <translation>モデルが読み込まれていないため、まだ生成できません。「モデル ▸ モデルの管理…」で読み込んでください。</translation>
    </message>
    <message>
        <source>The prompt is empty.</source>
        <translation>プロンプトが空です。</translation>
    </message>
    <message>
        <source>Generating…</source>
        <translation>生成中…</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>停止中…</translation>
    </message>
    <message>
        <source>Decoding autoregressively…</source>
        <translation>自己回帰でデコード中…</translation>
    </message>
    <message>
        <source>Done.</source>
        <translation>完了しました。</translation>
    </message>
    <message>
        <source>Generation failed: %1</source>
        <translation>生成に失敗しました: %1</translation>
    </message>
    <message>
        <source>No generation yet.</source>
        <translation>まだ生成していません。</translation>
    </message>
    <message numerus="yes">
        <source>Stopped after %n token(s).</source>
        <translation>
            <numerusform>%n トークンで停止しました。</numerusform>
        </translation>
    </message>
    <message>
        <source>Stopped during the autoregressive comparison.</source>
        <translation>自己回帰デコードとの比較中に停止しました。</translation>
    </message>
    <message>
        <source>%1 tokens in %2 steps, %3 tokens/s, %4 denoising passes per token, first block complete after %5 ms</source>
        <translation>%1 トークン、%2 ステップ、%3 トークン/秒、1 トークンあたり %4 回のデノイジングパス、最初のブロック完成まで %5 ms</translation>
    </message>
    <message>
        <source>Autoregressive: %1 tokens, %2 tokens/s, %3 denoising passes per token</source>
        <translation>自己回帰: %1 トークン、%2 トークン/秒、1 トークンあたり %3 回のデノイジングパス</translation>
    </message>
    <message>
        <source>Stopped.</source>
        <translation>停止しました。</translation>
    </message>
    <message>
        <source>The embedded model, DICE-nano, was trained only on the workbench&apos;s task prompts (the built-in tasks, and families of elementwise maps, row reductions and normalisations, softmax, pooling and small matrix products): a free request gives text it never learnt to write. Pick a task, or load a DICE checkpoint.</source>
        <translation>組み込みモデル DICE-nano は、ワークベンチのタスクのプロンプト (組み込みタスクと、要素ごとの写像、行ごとの縮約と正規化、softmax、プーリング、小さな行列積の各ファミリー) だけで学習しています。自由な依頼には、学んだことのないテキストを返します。タスクを選ぶか、DICE のチェックポイントを読み込んでください。</translation>
    </message>
    <message>
        <source>The embedded model, DICE-nano, was not trained on KernelBench prompts: use the native prompt, or load a DICE checkpoint.</source>
        <translation>組み込みモデル DICE-nano は KernelBench のプロンプトでは学習していません。ネイティブのプロンプトを使うか、DICE のチェックポイントを読み込んでください。</translation>
    </message>
</context>
<context>
    <name>dice::InfillArea</name>
    <message>
        <source>Fill all holes</source>
        <translation>すべての穴を埋める</translation>
    </message>
    <message>
        <source>The model fills each hole using the rest of the file as context.</source>
        <translation>モデルはファイルの残りの部分を文脈として各穴を埋めます。</translation>
    </message>
    <message>
        <source>Make a hole</source>
        <translation>穴を作る</translation>
    </message>
    <message>
        <source>Name of the hole (letters, digits, underscores; empty for none):</source>
        <translation>穴の名前 (英字・数字・下線。空欄なら名前なし):</translation>
    </message>
    <message>
        <source>Hole</source>
        <translation>穴</translation>
    </message>
    <message>
        <source>Line</source>
        <translation>行</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状態</translation>
    </message>
    <message>
        <source>Denoising of the hole</source>
        <translation>穴のデノイズ</translation>
    </message>
    <message>
        <source>Diff against the skeleton</source>
        <translation>スケルトンとの差分</translation>
    </message>
    <message>
        <source>Make a hole from the selection…</source>
        <translation>選択範囲から穴を作る…</translation>
    </message>
    <message>
        <source>Fill this hole</source>
        <translation>この穴を埋める</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Accept</source>
        <translation>採用</translation>
    </message>
    <message>
        <source>Reject</source>
        <translation>却下</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>元に戻す</translation>
    </message>
    <message>
        <source>Back to the skeleton</source>
        <translation>スケルトンに戻す</translation>
    </message>
    <message>
        <source>Send to Profile</source>
        <translation>プロファイルへ送る</translation>
    </message>
    <message>
        <source>empty</source>
        <translation>空</translation>
    </message>
    <message>
        <source>waiting</source>
        <translation>待機中</translation>
    </message>
    <message>
        <source>filling…</source>
        <translation>埋めています…</translation>
    </message>
    <message>
        <source>failed: %1</source>
        <translation>失敗: %1</translation>
    </message>
    <message>
        <source>(unnamed)</source>
        <translation>(名前なし)</translation>
    </message>
    <message>
        <source>No model is loaded, so holes cannot be filled yet. Load one with Model ▸ Manage models…</source>
        <translation>モデルが読み込まれていないため、まだ穴を埋められません。「モデル ▸ モデルの管理…」で読み込んでください。</translation>
    </message>
    <message>
        <source>No holes. Select code and make a hole from it, or write {{hole:NAME}} where the model should write.</source>
        <translation>穴がありません。コードを選択して穴を作るか、モデルに書かせたい場所に {{hole:NAME}} と書いてください。</translation>
    </message>
    <message>
        <source>Select the code the hole should replace first.</source>
        <translation>先に、穴に置き換えるコードを選択してください。</translation>
    </message>
    <message>
        <source>There is a hole named &quot;%1&quot; already.</source>
        <translation>「%1」という名前の穴はすでにあります。</translation>
    </message>
    <message>
        <source>There is no hole named &quot;%1&quot;.</source>
        <translation>「%1」という名前の穴はありません。</translation>
    </message>
    <message>
        <source>A native skeleton is filled for a task: select one in the task browser.</source>
        <translation>ネイティブのスケルトンはタスクに対して埋めます。タスクブラウザーでタスクを選んでください。</translation>
    </message>
    <message>
        <source>Filling %1…</source>
        <translation>%1 を埋めています…</translation>
    </message>
    <message numerus="yes">
        <source>proposal ready, lines: %n</source>
        <translation>
            <numerusform>提案あり (%n 行)</numerusform>
        </translation>
    </message>
    <message>
        <source>The embedded model, DICE-nano, was trained to fill the kernel bodies of native skeletons, not KernelBench code: load a DICE checkpoint to fill this file.</source>
        <translation>組み込みモデル DICE-nano は、ネイティブのスケルトンのカーネル本体を埋めるように学習しており、KernelBench のコードは対象外です。このファイルを埋めるには DICE のチェックポイントを読み込んでください。</translation>
    </message>
    <message>
        <source>The embedded model, DICE-nano, fills each hole using the rest of the file as context; it was trained on holes that are whole kernel bodies of the built-in tasks&apos; solutions and of the task families of its corpus.</source>
        <translation>組み込みモデル DICE-nano は、ファイルの残りを文脈として各穴を埋めます。学習したのは、組み込みタスクの解答とコーパスのタスク群のカーネル本体全体を穴とするものです。</translation>
    </message>
</context>
<context>
    <name>dice::MainWindow</name>
    <message>
        <source>Language</source>
        <translation>言語</translation>
    </message>
    <message>
        <source>The translation for %1 could not be loaded.</source>
        <translation>%1 の翻訳を読み込めませんでした。</translation>
    </message>
    <message>
        <source>DICE Workbench</source>
        <translation>DICE ワークベンチ</translation>
    </message>
    <message>
        <source>Generate</source>
        <translation>生成</translation>
    </message>
    <message>
        <source>Infill</source>
        <translation>穴埋め</translation>
    </message>
    <message>
        <source>Profile</source>
        <translation>プロファイル</translation>
    </message>
    <message>
        <source>Fine-tune</source>
        <translation>ファインチューニング</translation>
    </message>
    <message>
        <source>Watch the model sculpt a kernel out of masked tokens</source>
        <translation>モデルがマスクされたトークンからカーネルを彫り出す様子を見る</translation>
    </message>
    <message>
        <source>Let the model fill the holes of a kernel skeleton</source>
        <translation>カーネルの骨組みの穴をモデルに埋めさせる</translation>
    </message>
    <message>
        <source>Compile, check and time a kernel</source>
        <translation>カーネルをコンパイル・検証・計測する</translation>
    </message>
    <message>
        <source>Fine-tune the model with reinforcement learning</source>
        <translation>強化学習でモデルをファインチューニングする</translation>
    </message>
    <message>
        <source>Tasks</source>
        <translation>タスク</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>ファイル(&amp;F)</translation>
    </message>
    <message>
        <source>Open &amp;task folder…</source>
        <translation>タスクフォルダを開く(&amp;T)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>終了(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>表示(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>言語(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>ヘルプ(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About DICE Workbench</source>
        <translation>DICE ワークベンチについて(&amp;A)</translation>
    </message>
    <message>
        <source>About &amp;Qt</source>
        <translation>Qt について(&amp;Q)</translation>
    </message>
    <message numerus="yes">
        <source>%n task file(s) could not be read; the first: %1</source>
        <translation>
            <numerusform>%n 個のタスクファイルを読み込めませんでした。最初のもの: %1</numerusform>
        </translation>
    </message>
    <message>
        <source>Open task folder</source>
        <translation>タスクフォルダを開く</translation>
    </message>
    <message>
        <source>The model could not be loaded: %1</source>
        <translation>モデルを読み込めませんでした: %1</translation>
    </message>
    <message>
        <source>&amp;Model</source>
        <translation>モデル(&amp;M)</translation>
    </message>
    <message>
        <source>&amp;Manage models…</source>
        <translation>モデルの管理(&amp;M)…</translation>
    </message>
    <message>
        <source>&amp;Unload the model</source>
        <translation>モデルを解放(&amp;U)</translation>
    </message>
    <message>
        <source>%1 is not a task of this suite; the current task is kept.</source>
        <translation>%1 はこのスイートのタスクではありません。現在のタスクはそのままです。</translation>
    </message>
    <message>
        <source>Open kernel</source>
        <translation>カーネルを開く</translation>
    </message>
    <message>
        <source>Kernels and candidates (*.cu *.cuh *.dice);;All files (*)</source>
        <translation>カーネルと候補 (*.cu *.cuh *.dice);;すべてのファイル (*)</translation>
    </message>
    <message>
        <source>&amp;Open kernel…</source>
        <translation>カーネルを開く(&amp;O)…</translation>
    </message>
    <message>
        <source>Open a CUDA kernel or a candidate (.dice) in the Profile editor</source>
        <translation>CUDA カーネルまたは候補 (.dice) をプロファイルのエディタで開きます</translation>
    </message>
    <message>
        <source>&amp;Save kernel</source>
        <translation>カーネルを保存(&amp;S)</translation>
    </message>
    <message>
        <source>Save kernel &amp;as…</source>
        <translation>名前を付けてカーネルを保存(&amp;A)…</translation>
    </message>
    <message>
        <source>Open the task&apos;s &amp;solution</source>
        <translation>タスクの解答を開く(&amp;S)</translation>
    </message>
    <message>
        <source>Opened %1</source>
        <translation>%1 を開きました</translation>
    </message>
    <message>
        <source>Save kernel</source>
        <translation>カーネルを保存</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>%1 を保存しました</translation>
    </message>
    <message>
        <source>Task %1 has no hand-written solution</source>
        <translation>タスク %1 には手書きの解答がありません</translation>
    </message>
    <message>
        <source>No task is selected</source>
        <translation>タスクが選択されていません</translation>
    </message>
    <message>
        <source>The kernel in the Profile editor</source>
        <translation>プロファイルのエディタのカーネル</translation>
    </message>
    <message>
        <source>Unsaved edits</source>
        <translation>未保存の編集</translation>
    </message>
    <message>
        <source>%1 has edits that are not saved.</source>
        <translation>%1 には保存されていない編集があります。</translation>
    </message>
    <message>
        <source>The Profile editor&apos;s edits were kept; the candidate was not sent.</source>
        <translation>プロファイルエディタの編集内容を残しました。候補は送られていません。</translation>
    </message>
</context>
<context>
    <name>dice::ModelManager</name>
    <message>
        <source>Choose a checkpoint folder (config.json, tokenizer.json, safetensors)</source>
        <translation>チェックポイントのフォルダーを選ぶ (config.json、tokenizer.json、safetensors)</translation>
    </message>
    <message>
        <source>Loading %1</source>
        <translation>%1 を読み込み中</translation>
    </message>
    <message>
        <source>Loaded %1 in %2 s.</source>
        <translation>%1 を %2 秒で読み込みました。</translation>
    </message>
    <message>
        <source>Not loaded: %1</source>
        <translation>読み込めませんでした: %1</translation>
    </message>
    <message>
        <source>No model is loaded.</source>
        <translation>モデルは読み込まれていません。</translation>
    </message>
    <message>
        <source>Models</source>
        <translation>モデル</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>デバイス</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <source>CPU threads (0: automatic)</source>
        <translation>CPU スレッド数 (0: 自動)</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>CUDA GPU</source>
        <translation>CUDA GPU</translation>
    </message>
    <message>
        <source>CUDA GPU (not available)</source>
        <translation>CUDA GPU (利用できません)</translation>
    </message>
    <message>
        <source>fp32</source>
        <translation>fp32</translation>
    </message>
    <message>
        <source>bf16</source>
        <translation>bf16</translation>
    </message>
    <message>
        <source>fp16</source>
        <translation>fp16</translation>
    </message>
    <message>
        <source>Add folder…</source>
        <translation>フォルダーを追加…</translation>
    </message>
    <message>
        <source>Remove from list</source>
        <translation>一覧から削除</translation>
    </message>
    <message>
        <source>Load</source>
        <translation>読み込む</translation>
    </message>
    <message>
        <source>Cancel loading</source>
        <translation>読み込みを中止</translation>
    </message>
    <message>
        <source>Unload</source>
        <translation>解放</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>閉じる</translation>
    </message>
    <message>
        <source>Loaded: %1</source>
        <translation>読み込み済み: %1</translation>
    </message>
    <message>
        <source>%1 (embedded)</source>
        <translation>%1 (内蔵)</translation>
    </message>
    <message>
        <source>%1 has no config.json, so it is not a checkpoint folder.</source>
        <translation>%1 には config.json がないため、チェックポイントのフォルダーではありません。</translation>
    </message>
    <message>
        <source>This folder cannot be used: %1</source>
        <translation>このフォルダーは使えません: %1</translation>
    </message>
    <message>
        <source>Architecture: %1</source>
        <translation>アーキテクチャ: %1</translation>
    </message>
    <message>
        <source>Parameters: %1</source>
        <translation>パラメーター数: %1</translation>
    </message>
    <message>
        <source>Layers: %1, hidden size %2, intermediate size %3</source>
        <translation>層数: %1、隠れ次元 %2、中間次元 %3</translation>
    </message>
    <message>
        <source>Attention heads: %1 (key/value heads %2, head size %3)</source>
        <translation>アテンションヘッド: %1 (キー/バリューヘッド %2、ヘッド次元 %3)</translation>
    </message>
    <message>
        <source>Vocabulary: %1, positions: %2</source>
        <translation>語彙: %1、位置数: %2</translation>
    </message>
    <message>
        <source>Block size: %1, mask token: %2</source>
        <translation>ブロック長: %1、マスクトークン: %2</translation>
    </message>
    <message>
        <source>from the tokenizer</source>
        <translation>トークナイザーから</translation>
    </message>
    <message>
        <source>Stored as %1 in %2 safetensors file(s), %3</source>
        <translation>%1 で safetensors ファイル %2 個に保存、%3</translation>
    </message>
    <message>
        <source>Missing: tokenizer.json</source>
        <translation>不足: tokenizer.json</translation>
    </message>
    <message>
        <source>Add a checkpoint folder in the Hugging Face format (SDAR, TraDo or Qwen3: config.json, tokenizer.json, model.safetensors or a sharded index).</source>
        <translation>Hugging Face 形式のチェックポイントのフォルダーを追加してください (SDAR、TraDo または Qwen3: config.json、tokenizer.json、model.safetensors または分割インデックス)。</translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation>読み込み中…</translation>
    </message>
    <message>
        <source>Memory for the weights: %1 in fp32 (CPU), %2 in bf16 or fp16 (GPU)</source>
        <translation>重みに必要なメモリー: fp32 (CPU) で %1、bf16 または fp16 (GPU) で %2</translation>
    </message>
    <message>
        <source>Key/value cache: %1 per 1,000 tokens in fp32, %2 in bf16</source>
        <translation>キー/バリューキャッシュ: 1,000 トークンあたり fp32 で %1、bf16 で %2</translation>
    </message>
</context>
<context>
    <name>dice::ModelRunner</name>
    <message>
        <source>Loading was cancelled.</source>
        <translation>読み込みを中止しました。</translation>
    </message>
    <message>
        <source>No model is loaded.</source>
        <translation>モデルは読み込まれていません。</translation>
    </message>
</context>
<context>
    <name>dice::ProfileArea</name>
    <message>
        <source>Target:</source>
        <translation>ターゲット:</translation>
    </message>
    <message>
        <source>Compile after edits</source>
        <translation>編集後にコンパイル</translation>
    </message>
    <message>
        <source>Compile</source>
        <translation>コンパイル</translation>
    </message>
    <message>
        <source>Evaluate</source>
        <translation>評価</translation>
    </message>
    <message>
        <source>Diagnostics</source>
        <translation>診断</translation>
    </message>
    <message>
        <source>PTX</source>
        <translation>PTX</translation>
    </message>
    <message>
        <source>Kernel</source>
        <translation>カーネル</translation>
    </message>
    <message>
        <source>Registers</source>
        <translation>レジスタ</translation>
    </message>
    <message>
        <source>Shared memory</source>
        <translation>共有メモリ</translation>
    </message>
    <message>
        <source>Stack frame</source>
        <translation>スタックフレーム</translation>
    </message>
    <message>
        <source>Spill stores</source>
        <translation>スピルストア</translation>
    </message>
    <message>
        <source>Spill loads</source>
        <translation>スピルロード</translation>
    </message>
    <message>
        <source>Barriers</source>
        <translation>バリア</translation>
    </message>
    <message>
        <source>This build has no NVRTC: kernels cannot be compiled</source>
        <translation>このビルドには NVRTC がないため、カーネルをコンパイルできません</translation>
    </message>
    <message>
        <source>Compiling for %1…</source>
        <translation>%1 向けにコンパイル中…</translation>
    </message>
    <message>
        <source>%1 B</source>
        <translation>%1 B</translation>
    </message>
    <message numerus="yes">
        <source>Compiled for %1 in %2 ms%3: %n kernel(s), %4 warning(s)</source>
        <translation>
            <numerusform>%1 向けに %2 ms でコンパイルしました%3: カーネル %n 個、警告 %4 件</numerusform>
        </translation>
    </message>
    <message>
        <source> (cached)</source>
        <translation>（キャッシュ）</translation>
    </message>
    <message numerus="yes">
        <source>Compilation failed: %n error(s)</source>
        <translation>
            <numerusform>コンパイル失敗: エラー %n 件</numerusform>
        </translation>
    </message>
    <message>
        <source>Evaluating: %1 %2% %3</source>
        <translation>評価中: %1 %2% %3</translation>
    </message>
    <message>
        <source>Evaluated (run %1): %2</source>
        <translation>評価しました (実行 %1): %2</translation>
    </message>
    <message>
        <source>Select the task this candidate solves in the task browser</source>
        <translation>この候補が解くタスクをタスクブラウザーで選んでください</translation>
    </message>
    <message>
        <source>Evaluation needs a candidate in the native dialect (#pragma dice device / #pragma dice host)</source>
        <translation>評価にはネイティブ形式の候補が必要です (#pragma dice device / #pragma dice host)</translation>
    </message>
    <message>
        <source>No GPU: the candidate is compiled and inspected, not run</source>
        <translation>GPU なし: 候補はコンパイルと検査のみで、実行しません</translation>
    </message>
    <message>
        <source>Check and time the candidate against %1</source>
        <translation>候補を %1 と照合して時間を計測します</translation>
    </message>
    <message>
        <source>SASS</source>
        <translation>SASS</translation>
    </message>
    <message>
        <source>Resources and occupancy</source>
        <translation>リソースと占有率</translation>
    </message>
    <message>
        <source>Evaluation</source>
        <translation>評価</translation>
    </message>
    <message>
        <source>History</source>
        <translation>履歴</translation>
    </message>
    <message>
        <source>Occupancy at 256 threads</source>
        <translation>256 スレッドでの占有率</translation>
    </message>
    <message>
        <source>Threads per block</source>
        <translation>ブロックあたりのスレッド数</translation>
    </message>
    <message>
        <source>Theoretical occupancy (%)</source>
        <translation>理論占有率 (%)</translation>
    </message>
    <message>
        <source>%1% (%2)</source>
        <translation>%1% (%2)</translation>
    </message>
    <message>
        <source>No occupancy table for %1.</source>
        <translation>%1 の占有率の表がありません。</translation>
    </message>
    <message>
        <source>%1: %2 registers, %3 B shared; %4% at 256 threads (limited by %5), best %6% from %7 threads.</source>
        <translation>%1: レジスター %2 個、共有メモリー %3 B。256 スレッドで %4% (制約: %5)、%7 スレッドから最大 %6%。</translation>
    </message>
    <message>
        <source>Compile to see the occupancy of each kernel on %1.</source>
        <translation>コンパイルすると、%1 での各カーネルの占有率が表示されます。</translation>
    </message>
    <message>
        <source>// SASS is shown when nvdisasm or cuobjdump (CUDA toolkit) is on the PATH.</source>
        <translation>// nvdisasm か cuobjdump (CUDA ツールキット) が PATH にあると SASS を表示します。</translation>
    </message>
    <message>
        <source>// Disassembling…</source>
        <translation>// 逆アセンブル中…</translation>
    </message>
    <message>
        <source>// The SASS could not be made: %1</source>
        <translation>// SASS を作れませんでした: %1</translation>
    </message>
    <message>
        <source>Evaluating against %1…</source>
        <translation>%1 と照合して評価中…</translation>
    </message>
    <message>
        <source>Options:</source>
        <translation>オプション:</translation>
    </message>
    <message>
        <source>e.g. --use_fast_math -maxrregcount=64 -DTILE=32</source>
        <translation>例: --use_fast_math -maxrregcount=64 -DTILE=32</translation>
    </message>
    <message>
        <source>More NVRTC options for this compile and for Evaluate. Allowed: %1. Headers come from the CUDA toolkit only.</source>
        <translation>このコンパイルと評価に加える NVRTC オプション。使えるもの: %1。ヘッダは CUDA ツールキットのものだけです。</translation>
    </message>
    <message>
        <source>Colour bands</source>
        <translation>色帯</translation>
    </message>
    <message>
        <source>Each source line and the instructions made from it in one colour</source>
        <translation>ソースの各行とそこから生成された命令を同じ色で示します</translation>
    </message>
    <message>
        <source>Compare with baseline</source>
        <translation>ベースラインと比較</translation>
    </message>
    <message>
        <source>run #%1</source>
        <translation>実行 #%1</translation>
    </message>
    <message>
        <source>Counters</source>
        <translation>カウンター</translation>
    </message>
    <message>
        <source>Counters are read of a candidate in the native dialect (#pragma dice device / #pragma dice host)</source>
        <translation>カウンターはネイティブ形式の候補から読み取ります (#pragma dice device / #pragma dice host)</translation>
    </message>
</context>
<context>
    <name>dice::RolloutBrowser</name>
    <message numerus="yes">
        <source>%n rollout(s), %1 correct, %2 kept</source>
        <translation>
            <numerusform>ロールアウト %n 件、正解 %1 件、採用 %2 件</numerusform>
        </translation>
    </message>
    <message>
        <source>The run&apos;s model folder is not on this machine: tokens are shown with the loaded model&apos;s vocabulary, or as numbers.</source>
        <translation>この実行のモデルフォルダはこのマシンにありません。トークンは読み込み済みモデルの語彙で、なければ番号で表示します。</translation>
    </message>
    <message>
        <source>step %1</source>
        <translation>ステップ %1</translation>
    </message>
    <message>
        <source>Best: reward %1, %2</source>
        <translation>最良: 報酬 %1、%2</translation>
    </message>
    <message>
        <source>Worst: reward %1, %2</source>
        <translation>最悪: 報酬 %1、%2</translation>
    </message>
    <message>
        <source>This rollout&apos;s trace cannot be replayed: %1</source>
        <translation>このロールアウトの軌跡は再生できません: %1</translation>
    </message>
    <message>
        <source>Rollouts of</source>
        <translation>ロールアウト:</translation>
    </message>
    <message>
        <source>Filter by task, verdict or flag</source>
        <translation>タスク・判定・フラグで絞り込み</translation>
    </message>
    <message>
        <source>Denoising</source>
        <translation>デノイジング</translation>
    </message>
    <message>
        <source>Answer</source>
        <translation>回答</translation>
    </message>
    <message>
        <source>Candidate</source>
        <translation>候補</translation>
    </message>
    <message>
        <source>Prompt</source>
        <translation>プロンプト</translation>
    </message>
    <message>
        <source>Judge&apos;s message</source>
        <translation>判定のメッセージ</translation>
    </message>
    <message>
        <source>Best and worst of the group</source>
        <translation>グループの最良と最悪</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>一時停止</translation>
    </message>
    <message>
        <source>Replay</source>
        <translation>再生</translation>
    </message>
    <message>
        <source>Send to Profile</source>
        <translation>プロファイルへ送る</translation>
    </message>
    <message>
        <source>Send to Infill</source>
        <translation>穴埋めへ送る</translation>
    </message>
</context>
<context>
    <name>dice::RolloutModel</name>
    <message>
        <source>hack: %1</source>
        <translation>不正: %1</translation>
    </message>
    <message>
        <source>ended by %1</source>
        <translation>終了理由 %1</translation>
    </message>
    <message>
        <source>hole %1</source>
        <translation>穴 %1</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>はい</translation>
    </message>
    <message>
        <source>no</source>
        <translation>いいえ</translation>
    </message>
    <message>
        <source>Group</source>
        <translation>グループ</translation>
    </message>
    <message>
        <source>Task</source>
        <translation>タスク</translation>
    </message>
    <message>
        <source>Level</source>
        <translation>レベル</translation>
    </message>
    <message>
        <source>Reward</source>
        <translation>報酬</translation>
    </message>
    <message>
        <source>Advantage</source>
        <translation>アドバンテージ</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>判定</translation>
    </message>
    <message>
        <source>Flags</source>
        <translation>フラグ</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>トークン</translation>
    </message>
    <message>
        <source>Passes</source>
        <translation>パス数</translation>
    </message>
    <message>
        <source>Kept</source>
        <translation>採用</translation>
    </message>
</context>
<context>
    <name>dice::RunCurves</name>
    <message>
        <source>Policy loss</source>
        <translation>方策損失</translation>
    </message>
    <message>
        <source>Clip fraction</source>
        <translation>クリップ率</translation>
    </message>
    <message>
        <source>step</source>
        <translation>ステップ</translation>
    </message>
    <message>
        <source>&lt;i&gt;Levels 1, 2, 3 and sampling, judging, updating: solid, dashed, dotted. Dashed vertical line: a phase begins; dotted: a new level is asked.&lt;/i&gt;</source>
        <translation>&lt;i&gt;レベル 1・2・3 と、サンプリング・判定・更新: 実線・破線・点線。縦の破線: フェーズの開始。縦の点線: 新しいレベルの出題開始。&lt;/i&gt;</translation>
    </message>
    <message>
        <source>Reward (mean, ± 1 sd)</source>
        <translation>報酬(平均 ± 1 標準偏差)</translation>
    </message>
    <message>
        <source>Pass rate by level</source>
        <translation>レベル別正解率</translation>
    </message>
    <message>
        <source>Groups dropped</source>
        <translation>除外されたグループ</translation>
    </message>
    <message>
        <source>KL</source>
        <translation>KL</translation>
    </message>
    <message>
        <source>Entropy (nats)</source>
        <translation>エントロピー (nat)</translation>
    </message>
    <message>
        <source>Answer tokens</source>
        <translation>回答のトークン数</translation>
    </message>
    <message>
        <source>Seconds per step</source>
        <translation>ステップあたりの秒数</translation>
    </message>
    <message>
        <source>Held-out correct</source>
        <translation>評価用タスクの正解率</translation>
    </message>
    <message>
        <source>Mean reward of the step&apos;s rollouts, with a band of one standard deviation.</source>
        <translation>ステップのロールアウトの平均報酬と、±1 標準偏差の帯。</translation>
    </message>
    <message>
        <source>Share of correct rollouts for each task level: level 1 solid, 2 dashed, 3 dotted.</source>
        <translation>タスクのレベルごとの正解ロールアウトの割合: レベル 1 は実線、2 は破線、3 は点線。</translation>
    </message>
    <message>
        <source>Groups whose rollouts all earned the same reward: they have no advantage to learn from.</source>
        <translation>すべてのロールアウトが同じ報酬だったグループ。学習に使えるアドバンテージがありません。</translation>
    </message>
    <message>
        <source>TraceRL&apos;s clipped surrogate, averaged over the micro-batches.</source>
        <translation>TraceRL のクリップ付き代理目的関数(マイクロバッチ平均)。</translation>
    </message>
    <message>
        <source>k3 estimate of the KL divergence from the policy that sampled the rollouts.</source>
        <translation>ロールアウトをサンプリングした方策からの KL ダイバージェンスの k3 推定値。</translation>
    </message>
    <message>
        <source>Share of targets whose probability ratio was clipped.</source>
        <translation>確率比がクリップされた対象トークンの割合。</translation>
    </message>
    <message>
        <source>Mean entropy of the sampling policy at the tokens the update trains on.</source>
        <translation>更新が学習する対象トークンでのサンプリング方策の平均エントロピー。</translation>
    </message>
    <message>
        <source>Mean answer length of the step&apos;s rollouts.</source>
        <translation>ステップのロールアウトの平均回答長。</translation>
    </message>
    <message>
        <source>Seconds of the step: sampling solid, judging dashed, updating dotted.</source>
        <translation>ステップの秒数: サンプリングは実線、判定は破線、更新は点線。</translation>
    </message>
    <message>
        <source>Share of the held-out tasks answered correctly, greedily.</source>
        <translation>評価用タスクに貪欲デコードで正解した割合。</translation>
    </message>
</context>
<context>
    <name>dice::RunHistory</name>
    <message>
        <source>When (UTC)</source>
        <translation>日時 (UTC)</translation>
    </message>
    <message>
        <source>Task</source>
        <translation>タスク</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>判定</translation>
    </message>
    <message>
        <source>Speedup</source>
        <translation>高速化</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>デバイス</translation>
    </message>
    <message>
        <source>Newest first</source>
        <translation>新しい順</translation>
    </message>
    <message>
        <source>Oldest first</source>
        <translation>古い順</translation>
    </message>
    <message>
        <source>Fastest first</source>
        <translation>速い順</translation>
    </message>
    <message>
        <source>By task</source>
        <translation>タスク順</translation>
    </message>
    <message>
        <source>Pin as baseline</source>
        <translation>ベースラインに固定</translation>
    </message>
    <message>
        <source>Open in the editor</source>
        <translation>エディターで開く</translation>
    </message>
    <message>
        <source>Compare two</source>
        <translation>2 件を比較</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>更新</translation>
    </message>
    <message>
        <source>Select two runs and compare them side by side.</source>
        <translation>実行を 2 件選ぶと並べて比較できます。</translation>
    </message>
    <message>
        <source>No run store.</source>
        <translation>実行の記録がありません。</translation>
    </message>
    <message>
        <source>No run history: %1</source>
        <translation>実行履歴がありません: %1</translation>
    </message>
    <message>
        <source>All tasks</source>
        <translation>すべてのタスク</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s)</source>
        <translation>
            <numerusform>%n 件の実行</numerusform>
        </translation>
    </message>
    <message>
        <source>Run %1</source>
        <translation>実行 %1</translation>
    </message>
    <message>
        <source>Median time (ms)</source>
        <translation>時間の中央値 (ms)</translation>
    </message>
    <message>
        <source>Reference median (ms)</source>
        <translation>参照実装の中央値 (ms)</translation>
    </message>
    <message>
        <source>Compile time (ms)</source>
        <translation>コンパイル時間 (ms)</translation>
    </message>
    <message>
        <source>Driver</source>
        <translation>ドライバー</translation>
    </message>
    <message>
        <source>Run %1 against run %2</source>
        <translation>実行 %2 に対する実行 %1</translation>
    </message>
</context>
<context>
    <name>dice::RunModel</name>
    <message>
        <source>%1 (baseline)</source>
        <translation>%1 (ベースライン)</translation>
    </message>
    <message>
        <source>The pinned baseline of %1</source>
        <translation>%1 の固定されたベースライン</translation>
    </message>
    <message>
        <source>Driver %1</source>
        <translation>ドライバー %1</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>実行</translation>
    </message>
    <message>
        <source>When (UTC)</source>
        <translation>日時 (UTC)</translation>
    </message>
    <message>
        <source>Task</source>
        <translation>タスク</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>判定</translation>
    </message>
    <message>
        <source>Speedup</source>
        <translation>高速化</translation>
    </message>
    <message>
        <source>Median (ms)</source>
        <translation>中央値 (ms)</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>デバイス</translation>
    </message>
</context>
<context>
    <name>dice::RunSetup</name>
    <message>
        <source>Model</source>
        <translation>モデル</translation>
    </message>
    <message>
        <source>Run folder</source>
        <translation>実行フォルダ</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>デバイス</translation>
    </message>
    <message>
        <source>GPU indices of the evaluation workers; an index repeated gives that GPU more workers (for example 0,0,1).</source>
        <translation>評価ワーカーの GPU 番号。同じ番号を繰り返すとその GPU のワーカーが増えます(例: 0,0,1)。</translation>
    </message>
    <message>
        <source>Judging GPUs</source>
        <translation>判定に使う GPU</translation>
    </message>
    <message>
        <source>CPU threads (0: all)</source>
        <translation>CPU スレッド数(0: すべて)</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>シード</translation>
    </message>
    <message>
        <source>builtin (the workbench&apos;s suite), a corpus folder of dice data synth, or a folder of imported KernelBench problems</source>
        <translation>builtin(ワークベンチのスイート)、dice data synth のコーパスフォルダ、または取り込んだ KernelBench 問題のフォルダ</translation>
    </message>
    <message>
        <source>Only these tasks (names separated by commas); empty: every task.</source>
        <translation>これらのタスクのみ(名前をカンマ区切り)。空欄: すべてのタスク。</translation>
    </message>
    <message>
        <source>Kernel-infilling steps</source>
        <translation>カーネル穴埋めのステップ数</translation>
    </message>
    <message>
        <source>Infilling tasks</source>
        <translation>穴埋めのタスク</translation>
    </message>
    <message>
        <source>Infilling task names</source>
        <translation>穴埋めのタスク名</translation>
    </message>
    <message>
        <source>End-to-end steps</source>
        <translation>エンドツーエンドのステップ数</translation>
    </message>
    <message>
        <source>End-to-end tasks</source>
        <translation>エンドツーエンドのタスク</translation>
    </message>
    <message>
        <source>End-to-end task names</source>
        <translation>エンドツーエンドのタスク名</translation>
    </message>
    <message>
        <source>Schedule</source>
        <translation>スケジュール</translation>
    </message>
    <message>
        <source>Tasks per step</source>
        <translation>ステップあたりのタスク数</translation>
    </message>
    <message>
        <source>Rollouts per task</source>
        <translation>タスクあたりのロールアウト数</translation>
    </message>
    <message>
        <source>Block length</source>
        <translation>ブロック長</translation>
    </message>
    <message>
        <source>Denoising steps per block</source>
        <translation>ブロックあたりのデノイジングステップ数</translation>
    </message>
    <message>
        <source>Remasking</source>
        <translation>リマスキング</translation>
    </message>
    <message>
        <source>Dynamic threshold</source>
        <translation>動的しきい値</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Most tokens per answer</source>
        <translation>回答あたりの最大トークン数</translation>
    </message>
    <message>
        <source>Sequences decoded together</source>
        <translation>同時にデコードする系列数</translation>
    </message>
    <message>
        <source>Reward</source>
        <translation>報酬</translation>
    </message>
    <message>
        <source>Tolerance</source>
        <translation>許容誤差</translation>
    </message>
    <message>
        <source>Speedup weight</source>
        <translation>高速化の重み</translation>
    </message>
    <message>
        <source>Speedup clip</source>
        <translation>高速化の上限</translation>
    </message>
    <message>
        <source>Coverage weight</source>
        <translation>カバレッジの重み</translation>
    </message>
    <message>
        <source>Compile threads</source>
        <translation>コンパイルスレッド数</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>学習率</translation>
    </message>
    <message>
        <source>Rollouts per pass</source>
        <translation>パスあたりのロールアウト数</translation>
    </message>
    <message>
        <source>Passes per optimizer step</source>
        <translation>オプティマイザステップあたりのパス数</translation>
    </message>
    <message>
        <source>Gradient clipping</source>
        <translation>勾配クリッピング</translation>
    </message>
    <message>
        <source>PPO clip</source>
        <translation>PPO クリップ</translation>
    </message>
    <message>
        <source>KL weight</source>
        <translation>KL の重み</translation>
    </message>
    <message>
        <source>Evaluate every (steps)</source>
        <translation>評価の間隔(ステップ)</translation>
    </message>
    <message>
        <source>Held-out tasks: builtin or a folder; empty: no evaluation.</source>
        <translation>評価用タスク: builtin またはフォルダ。空欄: 評価しない。</translation>
    </message>
    <message>
        <source>Held-out tasks</source>
        <translation>評価用タスク</translation>
    </message>
    <message>
        <source>Held-out task names</source>
        <translation>評価用タスク名</translation>
    </message>
    <message>
        <source>Held-out most tokens</source>
        <translation>評価時の最大トークン数</translation>
    </message>
    <message>
        <source>Checkpoint every (steps)</source>
        <translation>チェックポイントの間隔(ステップ)</translation>
    </message>
    <message>
        <source>Checkpoints kept</source>
        <translation>保持するチェックポイント数</translation>
    </message>
    <message>
        <source>Model folder</source>
        <translation>モデルフォルダ</translation>
    </message>
    <message>
        <source>Choose a run folder.</source>
        <translation>実行フォルダを選んでください。</translation>
    </message>
    <message>
        <source>Save the run&apos;s configuration</source>
        <translation>実行の設定を保存</translation>
    </message>
    <message>
        <source>JSON files (*.json)</source>
        <translation>JSON ファイル (*.json)</translation>
    </message>
    <message>
        <source>Could not write %1: %2</source>
        <translation>%1 に書き込めませんでした: %2</translation>
    </message>
    <message>
        <source>Open a run&apos;s configuration</source>
        <translation>実行の設定を開く</translation>
    </message>
    <message>
        <source>the file is larger than 4 MiB</source>
        <translation>ファイルが 4 MiB を超えています</translation>
    </message>
    <message>
        <source>%1 cannot be used: %2</source>
        <translation>%1 は使えません: %2</translation>
    </message>
    <message>
        <source>Start from</source>
        <translation>開始点</translation>
    </message>
    <message>
        <source>The paper&apos;s recipe (GPU)</source>
        <translation>論文の手順 (GPU)</translation>
    </message>
    <message>
        <source>CPU demo (DICE-nano, minutes on two cores)</source>
        <translation>CPU デモ(DICE-nano、2 コアで数分)</translation>
    </message>
    <message>
        <source>Model and run</source>
        <translation>モデルと実行</translation>
    </message>
    <message>
        <source>Phases and data</source>
        <translation>フェーズとデータ</translation>
    </message>
    <message>
        <source>Rollouts</source>
        <translation>ロールアウト</translation>
    </message>
    <message>
        <source>Policy update</source>
        <translation>方策の更新</translation>
    </message>
    <message>
        <source>Held-out evaluation and checkpoints</source>
        <translation>評価用タスクとチェックポイント</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>参照…</translation>
    </message>
    <message>
        <source>Loaded model</source>
        <translation>読み込み済みモデル</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>コマンド</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>コピー</translation>
    </message>
    <message>
        <source>Save configuration…</source>
        <translation>設定を保存…</translation>
    </message>
    <message>
        <source>Open configuration…</source>
        <translation>設定を開く…</translation>
    </message>
    <message>
        <source>embedded, or a model folder</source>
        <translation>embedded またはモデルフォルダ</translation>
    </message>
    <message>
        <source>bfloat16 on the GPU</source>
        <translation>GPU では bfloat16</translation>
    </message>
    <message>
        <source>Forward passes in bfloat16 autocast; weights and optimizer stay float32.</source>
        <translation>順伝播は bfloat16 の autocast で行い、重みとオプティマイザは float32 のままにします。</translation>
    </message>
    <message>
        <source>Gradient checkpointing</source>
        <translation>勾配チェックポイント</translation>
    </message>
    <message>
        <source>Run each layer again in the backward pass instead of keeping its activations: about a third more arithmetic, much less memory.</source>
        <translation>活性化を保持せず、逆伝播で各層をもう一度実行します。計算量は約 3 分の 1 増えますが、メモリは大きく減ります。</translation>
    </message>
</context>
<context>
    <name>dice::SuiteEvaluationDialog</name>
    <message>
        <source>The suite has no tasks: open a task folder first.</source>
        <translation>スイートにタスクがありません。先にタスクのフォルダーを開いてください。</translation>
    </message>
    <message>
        <source>Choose the folder that holds a &lt;task&gt;.dice file for each task.</source>
        <translation>タスクごとに &lt;task&gt;.dice ファイルを収めたフォルダーを選んでください。</translation>
    </message>
    <message>
        <source>Evaluating the candidates in %1…</source>
        <translation>%1 の候補を評価中…</translation>
    </message>
    <message>
        <source>Stopping after the evaluations in flight…</source>
        <translation>実行中の評価が終わりしだい停止します…</translation>
    </message>
    <message>
        <source>Evaluate the Suite</source>
        <translation>スイートの評価</translation>
    </message>
    <message>
        <source>Candidates:</source>
        <translation>候補:</translation>
    </message>
    <message>
        <source>A folder with &lt;task&gt;.dice for each task</source>
        <translation>タスクごとの &lt;task&gt;.dice を収めたフォルダー</translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation>選択…</translation>
    </message>
    <message>
        <source>Timing preset:</source>
        <translation>計時プリセット:</translation>
    </message>
    <message>
        <source>Evaluations per candidate:</source>
        <translation>候補あたりの評価回数:</translation>
    </message>
    <message>
        <source>Evaluate</source>
        <translation>評価</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Folder of Candidates</source>
        <translation>候補のフォルダー</translation>
    </message>
    <message>
        <source>%1 of %2 evaluated; %3: %4</source>
        <translation>%2 件中 %1 件を評価済み。%3: %4</translation>
    </message>
    <message numerus="yes">
        <source>%n evaluation(s) of every task&apos;s candidate.</source>
        <translation>
            <numerusform>全タスクの候補を %n 回評価しました。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n task(s) had no candidate and count as failures.</source>
        <translation>
            <numerusform>%n 件のタスクに候補がなく、失敗として数えます。</numerusform>
        </translation>
    </message>
    <message>
        <source>The suite could not be evaluated: %1</source>
        <translation>スイートを評価できませんでした: %1</translation>
    </message>
</context>
<context>
    <name>dice::SystemStatus</name>
    <message>
        <source>Checking the machine…</source>
        <translation>マシンを確認中…</translation>
    </message>
    <message>
        <source>No GPU</source>
        <translation>GPU なし</translation>
    </message>
    <message>
        <source>Kernels can be compiled but not run or timed: %1</source>
        <translation>カーネルはコンパイルできますが、実行や計測はできません: %1</translation>
    </message>
    <message>
        <source>GPU: %1 (%2)</source>
        <translation>GPU: %1（%2）</translation>
    </message>
    <message numerus="yes">
        <source>%n GPU(s)</source>
        <translation>
            <numerusform>GPU %n 基</numerusform>
        </translation>
    </message>
    <message>
        <source>Driver: CUDA %1</source>
        <translation>ドライバ: CUDA %1</translation>
    </message>
    <message>
        <source>Driver: none</source>
        <translation>ドライバ: なし</translation>
    </message>
    <message>
        <source>CUDA toolkit: %1 · NVRTC %2</source>
        <translation>CUDA ツールキット: %1 · NVRTC %2</translation>
    </message>
    <message>
        <source>LibTorch %1 (CUDA %2)</source>
        <translation>LibTorch %1（CUDA %2）</translation>
    </message>
    <message>
        <source>LibTorch %1 (CPU)</source>
        <translation>LibTorch %1（CPU）</translation>
    </message>
    <message>
        <source>Model: %1</source>
        <translation>モデル: %1</translation>
    </message>
    <message>
        <source>No model loaded</source>
        <translation>モデル未読み込み</translation>
    </message>
</context>
<context>
    <name>dice::TaskBrowser</name>
    <message>
        <source>Filter tasks</source>
        <translation>タスクを絞り込む</translation>
    </message>
    <message>
        <source>Description</source>
        <translation>説明</translation>
    </message>
    <message>
        <source>Reference</source>
        <translation>リファレンス</translation>
    </message>
    <message>
        <source>PyTorch module</source>
        <translation>PyTorch モジュール</translation>
    </message>
    <message>
        <source>&lt;i&gt;Select a task to see its description and reference.&lt;/i&gt;</source>
        <translation>&lt;i&gt;タスクを選ぶと説明とリファレンスが表示されます。&lt;/i&gt;</translation>
    </message>
    <message>
        <source>Inputs</source>
        <translation>入力</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>パラメータ</translation>
    </message>
    <message>
        <source>Tolerance (float32): atol %1, rtol %2</source>
        <translation>許容誤差（float32）: atol %1、rtol %2</translation>
    </message>
    <message>
        <source>Evaluate the Suite…</source>
        <translation>スイートを評価…</translation>
    </message>
    <message>
        <source>Score every task with a folder of candidates, as dice eval --suite does</source>
        <translation>dice eval --suite と同じく、候補のフォルダーで全タスクを採点します</translation>
    </message>
</context>
<context>
    <name>dice::TaskModel</name>
    <message>
        <source>Level 1: single operators</source>
        <translation>レベル 1: 単一演算子</translation>
    </message>
    <message>
        <source>Level 2: fusions</source>
        <translation>レベル 2: 融合</translation>
    </message>
    <message>
        <source>Level 3: model blocks</source>
        <translation>レベル 3: モデルブロック</translation>
    </message>
    <message>
        <source>Task</source>
        <translation>タスク</translation>
    </message>
    <message>
        <source>Title</source>
        <translation>タイトル</translation>
    </message>
    <message>
        <source>Family</source>
        <translation>系統</translation>
    </message>
</context>
<context>
    <name>dice::TrainerProcess</name>
    <message>
        <source>Could not write %1: %2</source>
        <translation>%1 に書き込めませんでした: %2</translation>
    </message>
    <message>
        <source>A trainer is running already.</source>
        <translation>トレーナーはすでに動作中です。</translation>
    </message>
    <message>
        <source>The trainer program %1 is missing.</source>
        <translation>トレーナーのプログラム %1 が見つかりません。</translation>
    </message>
    <message>
        <source>Could not create the run folder %1.</source>
        <translation>実行フォルダ %1 を作成できませんでした。</translation>
    </message>
    <message>
        <source>The trainer could not be started: %1</source>
        <translation>トレーナーを起動できませんでした: %1</translation>
    </message>
    <message>
        <source>There is no run folder %1.</source>
        <translation>実行フォルダ %1 がありません。</translation>
    </message>
</context>
<context>
    <name>dice::TrialModel</name>
    <message>
        <source>yes</source>
        <translation>はい</translation>
    </message>
    <message>
        <source>no</source>
        <translation>いいえ</translation>
    </message>
    <message>
        <source>Seed %1</source>
        <translation>シード %1</translation>
    </message>
    <message>
        <source>Trial</source>
        <translation>試行</translation>
    </message>
    <message>
        <source>Passed</source>
        <translation>合格</translation>
    </message>
    <message>
        <source>Largest abs. error</source>
        <translation>最大絶対誤差</translation>
    </message>
    <message>
        <source>Largest rel. error</source>
        <translation>最大相対誤差</translation>
    </message>
    <message>
        <source>Detail</source>
        <translation>詳細</translation>
    </message>
</context>
<context>
    <name>dice::Verdict</name>
    <message>
        <source>correct</source>
        <translation>正解</translation>
    </message>
    <message>
        <source>wrong output</source>
        <translation>出力が誤り</translation>
    </message>
    <message>
        <source>compile error</source>
        <translation>コンパイルエラー</translation>
    </message>
    <message>
        <source>not a valid candidate</source>
        <translation>無効な候補</translation>
    </message>
    <message>
        <source>runtime error</source>
        <translation>実行時エラー</translation>
    </message>
    <message>
        <source>timed out</source>
        <translation>タイムアウト</translation>
    </message>
    <message>
        <source>PyTorch fallback</source>
        <translation>PyTorch へのフォールバック</translation>
    </message>
    <message>
        <source>not run</source>
        <translation>未実行</translation>
    </message>
</context>
</TS>
